/**
 * A stream path that inserts its messages without touching the conversation row, so
 * `updated_at` stays where it was. Mutant only (behavior.broken.streamFreezesUpdatedAt).
 */
import type { AppContext } from "../context.ts";

/**
 * Call before the exchange is stored; the returned function puts `updated_at` back afterwards.
 * Undefined in the conforming fake, and for a plain create.
 */
export function updatedAtKeeper(
  ctx: AppContext,
  operation: "create" | "stream",
  conversationId: string,
): (() => void) | undefined {
  if (!ctx.behavior.broken.streamFreezesUpdatedAt || operation !== "stream") return undefined;
  const conversation = ctx.conversations.byId(conversationId);
  if (conversation === undefined) return undefined;
  const before = conversation.updatedAt;
  return () => {
    conversation.updatedAt = before;
  };
}
