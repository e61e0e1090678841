/**
 * The scope rule (stage 7): a conversation is reached only by its own agent and channel, and an
 * agent the key does not grant does not exist for it, so anything else is a 404; also the mutants
 * that relax the rule or bring a deleted conversation back.
 */
import { ApiError } from "../http/api-error.ts";
import type { Behavior, ScopedOperation } from "../behavior/behavior.ts";
import type { ConversationStore, StoredConversation } from "../conversations/store.ts";
import type { ApiKeyGrant } from "./keys.ts";

export interface Caller {
  readonly grant: ApiKeyGrant;
  readonly agentId: string;
}

/** What scope uses of the context: the conversations, and the breakage a mutant may turn on. */
export interface ScopeContext {
  readonly behavior: Pick<Behavior, "broken">;
  readonly conversations: ConversationStore;
}

/** A /v1 request past the key check, as the scope rule reads it. */
export interface KeyedRequest {
  /** Set by the key check (app.ts) on every /v1 request that gets past it. */
  readonly grant?: ApiKeyGrant | undefined;
  readonly method?: string | undefined;
  readonly path: string;
  readonly params: Readonly<Record<string, string | undefined>>;
}

function callerOf(req: KeyedRequest): { grant: ApiKeyGrant; agentId: string } {
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
export function exchangeCaller(req: KeyedRequest): Caller {
  const caller = callerOf(req);
  if (!caller.grant.agents.has(caller.agentId)) {
    throw new ApiError(404, "not_found", `agent ${JSON.stringify(caller.agentId)} is not available to this API key`);
  }
  return caller;
}

/** The caller of a list or delete request; outside the key's agents every conversation is not found. */
export function conversationCaller(req: KeyedRequest): Caller {
  const caller = callerOf(req);
  if (!caller.grant.agents.has(caller.agentId)) throw conversationNotFound(req.params["conversation_id"] ?? "");
  return caller;
}

/**
 * The conversation `id` if the caller reaches it for this operation: only its own agent and
 * channel do. A mutant may relax the rule for one operation (behavior.broken.agentIgnoredOn,
 * channelIgnoredOn); then the conversation of the other scope is returned.
 */
export function findInScope(
  ctx: ScopeContext,
  id: string,
  caller: Caller,
  operation: ScopedOperation,
): StoredConversation | undefined {
  const { agentIgnoredOn, channelIgnoredOn } = ctx.behavior.broken;
  const owner = ctx.conversations.ownerOf(id);
  if (!owner) return undefined;
  const agentId = agentIgnoredOn.includes(operation) ? owner.agentId : caller.agentId;
  const channel = channelIgnoredOn.includes(operation) ? owner.channel : caller.grant.channel;
  return ctx.conversations.find(id, agentId, channel);
}

/** Whether a delete keeps the conversation aside for `reviveDeleted` (mutants only). */
export function keepsDeleted(behavior: Pick<Behavior, "broken">): boolean {
  return behavior.broken.deletedConversations !== "gone";
}

/** Mutants only: continuing a deleted conversation's id brings it back, or reuses the id. */
export function reviveDeleted(ctx: ScopeContext, id: string, caller: Caller): StoredConversation | undefined {
  const mode = ctx.behavior.broken.deletedConversations;
  if (mode === "gone") return undefined;
  return ctx.conversations.revive(id, caller.agentId, caller.grant.channel, mode === "restored" ? "restore" : "reuse");
}
