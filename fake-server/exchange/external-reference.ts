/**
 * `external_reference` taken for a natural key of conversations, as a `get_or_create` /
 * `find_or_create_by(external_reference: …)` does: a new conversation carrying a reference
 * that an earlier new conversation of the same agent and channel carried continues that one.
 * Mutants only (behavior.broken.externalReferenceReopens).
 */
import type { FakeResponseRequest } from "../../schemas/index.ts";
import { findInScope, type Caller, type ScopeContext } from "../access/scope.ts";
import type { ConversationStore } from "../conversations/store.ts";

/** Per session's store: (agent, channel, reference) → the conversation created with it. */
const conversationsByReference = new WeakMap<ConversationStore, Map<string, string>>();

const lookupKey = (caller: Caller, reference: string) =>
  JSON.stringify([caller.agentId, caller.grant.channel, reference]);

/** The conversation a new one with this reference is taken for; undefined to start one as usual. */
export function reopenedByReference(
  ctx: ScopeContext,
  caller: Caller,
  request: FakeResponseRequest,
): string | undefined {
  const reference = request.external_reference;
  if (
    !ctx.behavior.broken.externalReferenceReopens ||
    typeof reference !== "string" ||
    typeof request.conversation_id === "string"
  )
    return undefined;
  const id = conversationsByReference.get(ctx.conversations)?.get(lookupKey(caller, reference));
  // A conversation deleted (or emptied by a reset) since is not found: a new one starts.
  return id !== undefined && findInScope(ctx, id, caller, "continue") !== undefined ? id : undefined;
}

/** Remembers the reference of a conversation just started. */
export function rememberReference(
  ctx: ScopeContext,
  caller: Caller,
  request: FakeResponseRequest,
  conversationId: string,
): void {
  const reference = request.external_reference;
  if (!ctx.behavior.broken.externalReferenceReopens || typeof reference !== "string") return;
  let ofStore = conversationsByReference.get(ctx.conversations);
  if (ofStore === undefined) conversationsByReference.set(ctx.conversations, (ofStore = new Map()));
  ofStore.set(lookupKey(caller, reference), conversationId);
}
