/**
 * What the scope rule promises, and nothing more: which identities reach which
 * conversations, and how many messages each holds. It is not the fake server.
 */

/** An API key with the agents it grants on its channel (the fake's documented scope rule). */
export interface KeyScope {
  token: string;
  agents: readonly string[];
  channel: string;
}

export const KEYS: readonly KeyScope[] = [
  { token: "sk-web-ab", agents: ["agent-a", "agent-b"], channel: "web" },
  { token: "sk-web-a", agents: ["agent-a"], channel: "web" },
  { token: "sk-sms-a", agents: ["agent-a"], channel: "sms" },
  { token: "sk-sms-c", agents: ["agent-c"], channel: "sms" },
];
export const AGENTS = ["agent-a", "agent-b", "agent-c"] as const;

export const keySpecs = (): string[] => KEYS.map((key) => `${key.token}=${key.agents.join(",")}@${key.channel}`);

/** Who calls: a key and the agent in the path (which the key may not grant). */
export interface Identity {
  key: KeyScope;
  agent: string;
}

export const label = (who: Identity): string => `${who.key.token}/${who.agent}`;

export interface ModelConversation {
  id: string;
  agent: string;
  channel: string;
  messages: number;
}

export interface ScopeModel {
  live: ModelConversation[];
  /** Ids of deleted conversations: they must stay unreachable for everyone. */
  deleted: string[];
}

export const grants = (who: Identity): boolean => who.key.agents.includes(who.agent);

export const reaches = (who: Identity, conversation: ModelConversation): boolean =>
  grants(who) && conversation.agent === who.agent && conversation.channel === who.key.channel;

/** A target picked by index (shown as #index) among live, deleted and never-created ids, in that order. */
export interface Target {
  id: string;
  conversation: ModelConversation | undefined;
}

export function pickTarget(model: Readonly<ScopeModel>, index: number, unknownId: string): Target {
  const ids: Target[] = [
    ...model.live.map((conversation) => ({ id: conversation.id, conversation })),
    ...model.deleted.map((id) => ({ id, conversation: undefined })),
    { id: unknownId, conversation: undefined },
  ];
  return ids[index % ids.length] ?? { id: unknownId, conversation: undefined };
}

/** The real system: the fake's URL. */
export interface Real {
  url: string;
}
