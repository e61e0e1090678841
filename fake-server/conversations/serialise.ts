/**
 * Stored conversations and messages as the spec's resources: exactly the fake's Conversation and
 * MessageItem under the default behavior; the variants change the timestamp format and add a tool
 * note.
 */
import type { SpecConversation, SpecMessageItem } from "../../schemas/index.ts";
import { DEFAULT_BEHAVIOR, type Behavior } from "../behavior/behavior.ts";
import type { StoredConversation, StoredMessage } from "./store.ts";
import { wireTimestamp } from "./timestamps.ts";

/** `updatedAt`: when the conversation last changed as the reader sees it (a lagging listing sees an earlier moment). */
export function toConversation(
  conversation: StoredConversation,
  behavior: Behavior = DEFAULT_BEHAVIOR,
  updatedAt: number = conversation.updatedAt,
): SpecConversation {
  return {
    id: conversation.id,
    created_at: wireTimestamp(behavior, conversation.createdAt),
    updated_at: wireTimestamp(behavior, updatedAt),
  };
}

export function toMessageItem(message: StoredMessage, behavior: Behavior = DEFAULT_BEHAVIOR): SpecMessageItem {
  const created_at = wireTimestamp(behavior, message.createdAt);
  if (message.role !== "assistant") return { id: message.id, role: message.role, content: message.content, created_at };
  return {
    id: message.id,
    role: "assistant",
    content: message.content,
    citations: [...(message.citations ?? [])],
    created_at,
  };
}
