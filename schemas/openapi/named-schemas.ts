/**
 * The fake's schemas under their published names, as openapi/schemas/ and the components of
 * fake.json list them.
 */
import type { z } from "zod";
import {
  AssistantMessage,
  Citation,
  CompletedEvent,
  CompletedResponse,
  Conversation,
  CreatedEvent,
  DeltaEvent,
  ErrorBody,
  ErrorEvent,
  FakeErrorCode,
  FakeResponseRequest,
  MessageItem,
  MessagePage,
  ResponseResult,
  StreamEvent,
  UserMessage,
} from "../index.ts";

/**
 * The schemas published as JSON Schema files and OpenAPI components, under their
 * published names. All are the fake's strength: they document the exact shapes and
 * limits of the reference fake; descriptions say where the spec itself is looser.
 */
export interface NamedSchema {
  name: string;
  schema: z.ZodType;
  /** Request bodies are described as the client sends them, everything else as the fake sends it. */
  io: "input" | "output";
  description: string;
}

const FAKE = "Exact shape sent by the reference fake (unknown fields are never sent).";

export const FAKE_SCHEMAS: readonly NamedSchema[] = [
  {
    name: "ResponseRequest",
    schema: FakeResponseRequest,
    io: "input",
    description:
      "Body of both create operations. The spec guarantees only: `message` (string, required), `conversation_id` (UUID or null), " +
      "`external_reference` (string or null), `metadata` (a JSON object whose validation rules are not shown). " +
      "The length and metadata limits here are the reference fake's; it ignores unknown fields.",
  },
  {
    name: "ResponseResult",
    schema: ResponseResult,
    io: "output",
    description: `Result of the non-streaming create. The spec guarantees \`conversation_id\`, \`response\` and \`citations\` (an array of unspecified items). ${FAKE}`,
  },
  {
    name: "Citation",
    schema: Citation,
    io: "output",
    description: `One citation of an answer. Its shape is a gap in the spec; this is the reference fake's choice. ${FAKE}`,
  },
  {
    name: "CompletedResponse",
    schema: CompletedResponse,
    io: "output",
    description: `The \`response\` object of the \`response.completed\` event; the full text is \`output_text\` here but \`response\` in ResponseResult. ${FAKE}`,
  },
  {
    name: "Conversation",
    schema: Conversation,
    io: "output",
    description: `Summary of the listed conversation. The spec leaves the timestamp format open; the fake sends RFC 3339 UTC with milliseconds. ${FAKE}`,
  },
  {
    name: "UserMessage",
    schema: UserMessage,
    io: "output",
    description: `A message written by the user. Message fields are a gap in the spec; these are the fake's. ${FAKE}`,
  },
  {
    name: "AssistantMessage",
    schema: AssistantMessage,
    io: "output",
    description: `A message written by the assistant; the spec says only that it may carry \`citations\`. ${FAKE}`,
  },
  {
    name: "MessageItem",
    schema: MessageItem,
    io: "output",
    description: `One item of a message listing, told apart by \`role\`. ${FAKE}`,
  },
  {
    name: "MessagePage",
    schema: MessagePage,
    io: "output",
    description: `One page of a conversation's messages, oldest first. ${FAKE}`,
  },
  {
    name: "CreatedEvent",
    schema: CreatedEvent,
    io: "output",
    description:
      "Data of the `response.created` event. Its payload is a gap in the spec; the fake announces the conversation in it.",
  },
  {
    name: "DeltaEvent",
    schema: DeltaEvent,
    io: "output",
    description: "Data of the `response.output_text.delta` event: one fragment of the answer.",
  },
  {
    name: "CompletedEvent",
    schema: CompletedEvent,
    io: "output",
    description: "Data of the `response.completed` event: the complete answer. The stream ends after it.",
  },
  {
    name: "ErrorEvent",
    schema: ErrorEvent,
    io: "output",
    description: "Data of the `error` event: the stream fails and ends.",
  },
  {
    name: "StreamEvent",
    schema: StreamEvent,
    io: "output",
    description: "The `data:` JSON of any event of the stream; `type` equals the event's `event:` name.",
  },
  {
    name: "ErrorCode",
    schema: FakeErrorCode,
    io: "output",
    description:
      "Every code the reference fake sends in an HTTP error body or an `error` event. The spec names only `conversation_not_found`.",
  },
  {
    name: "ErrorBody",
    schema: ErrorBody,
    io: "output",
    description:
      "The reference fake's HTTP error body. The spec does not show an error body format; the only code it names is `conversation_not_found`.",
  },
];
