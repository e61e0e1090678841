import { ApiError } from "./http/api-error.ts";
import type { FakeRequest } from "./context.ts";
import type { ApiKeyGrant } from "./keys.ts";

export interface Caller {
  readonly grant: ApiKeyGrant;
  readonly agentId: string;
}

function callerOf(req: FakeRequest): { grant: ApiKeyGrant; agentId: string } {
  // The auth middleware runs before every /v1 route; a missing grant is a wiring bug.
  if (!req.grant) throw new Error(`no authenticated key on ${req.method} ${req.path}`);
  return { grant: req.grant, agentId: req.params["agent_id"] ?? "" };
}

export function conversationNotFound(conversationId: string): ApiError {
  return new ApiError(
    404,
    "conversation_not_found",
    `conversation ${JSON.stringify(conversationId)} does not exist for this agent and API key`,
  );
}

/** The caller of a create or stream request; an agent the key does not grant does not exist for it. */
export function exchangeCaller(req: FakeRequest): Caller {
  const caller = callerOf(req);
  if (!caller.grant.agents.has(caller.agentId)) {
    throw new ApiError(404, "not_found", `agent ${JSON.stringify(caller.agentId)} is not available to this API key`);
  }
  return caller;
}

/** The caller of a list or delete request; outside the key's agents every conversation is not found. */
export function conversationCaller(req: FakeRequest): Caller {
  const caller = callerOf(req);
  if (!caller.grant.agents.has(caller.agentId)) throw conversationNotFound(req.params["conversation_id"] ?? "");
  return caller;
}
