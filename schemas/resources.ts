/**
 * The resources the service answers with (a create's result, a conversation, a page of messages and
 * their citations): what the spec guarantees, open in its gaps, and the reference fake's exact
 * choices.
 */
import { z } from "zod";
import { FakeTimestamp, SpecTimestamp, Uuid } from "./primitives.ts";

// Spec strength: exactly what SPEC.md guarantees. Unknown fields pass, and every
// gap (citation shape, message item fields, timestamp format) is left open.

/** A citation: its shape is a gap in the spec. */
export const SpecCitation = z.unknown();

export const SpecResponseResult = z.looseObject({
  conversation_id: Uuid,
  response: z.string(),
  citations: z.array(SpecCitation),
});
export type SpecResponseResult = z.infer<typeof SpecResponseResult>;

export const SpecCompletedResponse = z.looseObject({
  conversation_id: Uuid,
  output_text: z.string(),
  citations: z.array(SpecCitation),
});
export type SpecCompletedResponse = z.infer<typeof SpecCompletedResponse>;

export const SpecConversation = z.looseObject({
  id: Uuid,
  created_at: SpecTimestamp,
  updated_at: SpecTimestamp,
});
export type SpecConversation = z.infer<typeof SpecConversation>;

/** What a message item should look like (a SHOULD-level check: the spec does not show its fields). */
export const SpecMessageItem = z.looseObject({
  citations: z.array(SpecCitation).optional(),
});
export type SpecMessageItem = z.infer<typeof SpecMessageItem>;

export const SpecMessagePage = z.looseObject({
  conversation: SpecConversation,
  items: z.array(z.unknown()),
  page: z.int(),
  page_size: z.int(),
  total: z.int().nonnegative(),
  has_more: z.boolean(),
});
export type SpecMessagePage = z.infer<typeof SpecMessagePage>;

// Fake strength: the reference fake's exact choices in the gaps. Strict objects,
// so a field the fake should not send fails its own tests.

export const Citation = z.strictObject({
  document_id: z.string().min(1),
  title: z.string().min(1),
  url: z.url(),
  snippet: z.string(),
});
export type Citation = z.infer<typeof Citation>;

export const ResponseResult = z.strictObject({
  conversation_id: Uuid,
  response: z.string(),
  citations: z.array(Citation),
});
export type ResponseResult = z.infer<typeof ResponseResult>;

export const CompletedResponse = z.strictObject({
  conversation_id: Uuid,
  output_text: z.string(),
  citations: z.array(Citation),
});
export type CompletedResponse = z.infer<typeof CompletedResponse>;

export const Conversation = z.strictObject({
  id: Uuid,
  created_at: FakeTimestamp,
  updated_at: FakeTimestamp,
});
export type Conversation = z.infer<typeof Conversation>;

export const UserMessage = z.strictObject({
  id: Uuid,
  role: z.literal("user"),
  content: z.string(),
  created_at: FakeTimestamp,
});
export const AssistantMessage = z.strictObject({
  id: Uuid,
  role: z.literal("assistant"),
  content: z.string(),
  citations: z.array(Citation),
  created_at: FakeTimestamp,
});
export const MessageItem = z.discriminatedUnion("role", [UserMessage, AssistantMessage]);
export type MessageItem = z.infer<typeof MessageItem>;

export const MessagePage = z.strictObject({
  conversation: Conversation,
  items: z.array(MessageItem),
  page: z.int().min(1),
  page_size: z.int().min(1).max(100),
  total: z.int().nonnegative(),
  has_more: z.boolean(),
});
export type MessagePage = z.infer<typeof MessagePage>;
