import type { Conversation, MessageItem } from "../../schemas/index.ts";
import type { StoredConversation, StoredMessage } from "./store.ts";
import { formatTimestamp } from "./timestamps.ts";

export function toConversation(conversation: StoredConversation): Conversation {
  return {
    id: conversation.id,
    created_at: formatTimestamp(conversation.createdAt),
    updated_at: formatTimestamp(conversation.updatedAt),
  };
}

export function toMessageItem(message: StoredMessage): MessageItem {
  const created_at = formatTimestamp(message.createdAt);
  if (message.role === "user") return { id: message.id, role: "user", content: message.content, created_at };
  return {
    id: message.id,
    role: "assistant",
    content: message.content,
    citations: [...(message.citations ?? [])],
    created_at,
  };
}
