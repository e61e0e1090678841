/**
 * Ways a replay goes wrong: three when a service's idempotency record points at the
 * conversation instead of holding the result it gave, two when a plain replay runs part of
 * the exchange again. Mutants only: the replay hook (exchange/hooks.ts) calls these when
 * their switch is on.
 */
import type { Caller } from "../access/scope.ts";
import type { AppContext } from "../context.ts";
import { StoredConversation } from "../conversations/store.ts";
import type { StoredOutcome } from "../idempotency/store.ts";
import { storedResult } from "../idempotency/stored-result.ts";

/**
 * The record is read as "the conversation it created or continued": the replay answers that
 * conversation's latest assistant message, right only until the conversation moves on. A
 * failed stream, or a conversation that is gone, keeps the stored outcome.
 */
export function latestTurnOutcome(ctx: AppContext, outcome: StoredOutcome): StoredOutcome {
  if (outcome.kind !== "answered") return outcome;
  const conversationId = storedResult(outcome).conversation_id;
  const messages = ctx.conversations.byId(conversationId)?.messages ?? [];
  const latest = messages.findLast((message) => message.role === "assistant");
  if (latest === undefined) return outcome;
  const body = JSON.stringify({
    conversation_id: conversationId,
    response: latest.content,
    citations: latest.citations ?? [],
  });
  return { kind: "answered", status: outcome.status, body };
}

/**
 * The record is taken as the source of truth: replaying a key whose conversation was deleted
 * writes the conversation back, holding that exchange, for the caller's agent and channel.
 */
export function restoreFromRecord(
  ctx: AppContext,
  caller: Caller,
  request: { readonly message: string },
  outcome: StoredOutcome,
): void {
  if (outcome.kind !== "answered") return;
  const result = storedResult(outcome);
  if (ctx.conversations.has(result.conversation_id)) return;
  ctx.conversations.admit(
    new StoredConversation(result.conversation_id, caller.agentId, caller.grant.channel, ctx.clock.now()),
  );
  ctx.conversations.appendExchange(result.conversation_id, request.message, result.response, result.citations);
}

/**
 * Replicas that share the idempotency records but remember in their own memory which keys'
 * exchanges they wrote (an at-least-once writer with a per-process dedupe set): a plain replay
 * on a replica that did not write it answers the stored result, and writes the exchange again.
 */
export function redoWriteOnOtherReplica(
  ctx: AppContext,
  appliedKey: string,
  request: { readonly message: string },
  outcome: StoredOutcome,
): void {
  if (ctx.appliedKeys === undefined || ctx.appliedKeys.has(appliedKey)) return;
  ctx.appliedKeys.add(appliedKey);
  if (outcome.kind !== "answered") return;
  const result = storedResult(outcome);
  if (!ctx.conversations.has(result.conversation_id)) return;
  ctx.conversations.appendExchange(result.conversation_id, request.message, result.response, result.citations);
}

/** A replay that consumes the operation again: the stored exchange is appended once more. */
export function appendAgain(ctx: AppContext, request: { readonly message: string }, outcome: StoredOutcome): void {
  if (outcome.kind !== "answered") return;
  const result = storedResult(outcome);
  ctx.conversations.appendExchange(result.conversation_id, request.message, result.response, result.citations);
}

/** A replay that generates its answer's text again instead of sending the stored one. */
export function regeneratedOutcome(outcome: StoredOutcome): StoredOutcome {
  if (outcome.kind !== "answered") return outcome;
  const result = storedResult(outcome);
  return {
    kind: "answered",
    status: outcome.status,
    body: JSON.stringify({ ...result, response: `${result.response} (regenerated)` }),
  };
}
