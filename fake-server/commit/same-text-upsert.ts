/**
 * An exchange stored with an upsert keyed on (conversation, message text), as a unique index
 * meant to stop double submits does it: `INSERT … ON CONFLICT (conversation_id, content) DO
 * UPDATE SET updated_at = now()`. The same text sent again in the conversation is answered but
 * merged into the earlier exchange. Mutant only (behavior.broken.sameTextMergedOn), on one endpoint.
 */
import type { AppContext } from "../context.ts";

/**
 * Whether the exchange is merged into an earlier one with the same user text (only the
 * conversation's `updated_at` moves, by at least 1 ms); false stores it as usual.
 */
export function mergedIntoSameText(
  ctx: AppContext,
  operation: "create" | "stream",
  conversationId: string,
  userText: string,
): boolean {
  if (ctx.behavior.broken.sameTextMergedOn !== operation) return false;
  const conversation = ctx.conversations.byId(conversationId);
  if (conversation === undefined || !conversation.messages.some((m) => m.role === "user" && m.content === userText))
    return false;
  conversation.updatedAt = Math.max(ctx.clock.now(), conversation.updatedAt + 1);
  return true;
}
