/**
 * An exchange that stores its conversation as an upsert of the whole message list it read at
 * its start plus its own exchange, as a service keeping a conversation in one document would.
 * Mutants only (behavior.broken.exchangeWritesBack): a delete that came while the exchange
 * was being generated is undone when it finishes.
 */
import type { AppContext } from "../context.ts";
import { StoredConversation } from "../conversations/store.ts";

/** The conversation as an exchange read it when it started. */
export interface ConversationRead {
  readonly conversation: StoredConversation;
  readonly messages: StoredConversation["messages"];
  readonly updatedAt: number;
}

/** What the exchange reads at its start; undefined when it does not write back (the conforming fake). */
export function readAtStart(ctx: AppContext, conversationId: string): ConversationRead | undefined {
  if (!ctx.behavior.broken.exchangeWritesBack) return undefined;
  const conversation = ctx.conversations.byId(conversationId);
  return conversation && { conversation, messages: conversation.messages.slice(), updatedAt: conversation.updatedAt };
}

/**
 * Before the exchange is appended: the upsert's insert half. A conversation deleted since the
 * read comes back as it was read; one that is still there is left alone, so the exchange
 * is appended to it as usual.
 */
export function writeBack(ctx: AppContext, read: ConversationRead | undefined): void {
  if (read === undefined || ctx.conversations.has(read.conversation.id)) return;
  const { id, agentId, channel, createdAt } = read.conversation;
  const restored = new StoredConversation(id, agentId, channel, createdAt);
  restored.messages = read.messages;
  restored.updatedAt = read.updatedAt;
  ctx.conversations.admit(restored);
}
