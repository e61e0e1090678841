/**
 * What the fake's default keys (DEFAULT_KEYS in options.ts) give a client that tests scope: a
 * primary identity, another agent under the same key, and the same agent under another
 * channel's key. The suite runs against the embedded fake with these.
 */
export const DEFAULT_IDENTITIES = {
  apiKey: "sk-fake-a",
  agentId: "agent-a",
  otherAgentId: "agent-b",
  otherApiKey: "sk-fake-b",
} as const;
