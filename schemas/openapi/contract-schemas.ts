/**
 * The contract's schemas for openapi/openapi.json: the suite's own spec-strength schemas under
 * their published names, with the bounds its MUST checks hold a listing to.
 */
import { z } from "zod";
import {
  CONVERSATION_NOT_FOUND,
  FastApiErrorBody,
  FlatErrorBody,
  JsonApiErrorBody,
  NestedErrorBody,
  ProblemBody,
} from "../errors.ts";
import { SpecCompletedEvent, SpecCreatedEvent, SpecDeltaEvent, SpecErrorEvent, SpecStreamEvent } from "../events.ts";
import { ResponseRequest } from "../request.ts";
import {
  SpecCitation,
  SpecCompletedResponse,
  SpecConversation,
  SpecMessagePage,
  SpecResponseResult,
} from "../resources.ts";
import { errorBodyWithCode } from "./error-shapes.ts";
import type { NamedSchema } from "./named-schemas.ts";

/** LIST-3, LIST-4: an answered page echoes a page of at least 1 and a page_size of 1 to 100, and holds at most 100 items. */
const MAX_PAGE_SIZE = 100;

/** A message item: the spec shows no fields (LIST-8 recommends an object). */
const MessageItem = z.unknown();

const MessagePage = SpecMessagePage.extend({
  items: z.array(MessageItem).max(MAX_PAGE_SIZE),
  page: z.int().min(1),
  page_size: z.int().min(1).max(MAX_PAGE_SIZE),
});

const ErrorBody = z.union([NestedErrorBody, FlatErrorBody, FastApiErrorBody, JsonApiErrorBody, ProblemBody]);

const OPEN = "Fields the spec does not name may be present.";

/**
 * The spec strength: what every conforming service answers, open exactly where the spec is
 * silent (and the suite tolerant). These are the suite's own spec schemas, with the bounds its
 * MUST checks hold a listing to; the fake's exact shapes are in named-schemas.ts.
 */
export const CONTRACT_SCHEMAS: readonly NamedSchema[] = [
  {
    name: "ResponseRequest",
    schema: ResponseRequest,
    io: "input",
    description:
      "Body of both create operations, as the spec gives it. Limits (message length, metadata size and depth) are the " +
      "service's own; the spec says only that the service validates `metadata`. Unknown fields may be sent.",
  },
  {
    name: "ResponseResult",
    schema: SpecResponseResult,
    io: "output",
    description: `Result of the non-streaming create. ${OPEN}`,
  },
  {
    name: "Citation",
    schema: SpecCitation,
    io: "output",
    description: "One citation of an answer. Its shape is a gap in the spec: any JSON value.",
  },
  {
    name: "CompletedResponse",
    schema: SpecCompletedResponse,
    io: "output",
    description: `The \`response\` object of the \`response.completed\` event; the full text is \`output_text\` here but \`response\` in ResponseResult. ${OPEN}`,
  },
  {
    name: "Conversation",
    schema: SpecConversation,
    io: "output",
    description: `Summary of the listed conversation. The timestamp format is a gap in the spec: a non-empty string or a number (LIST-8 recommends RFC 3339). ${OPEN}`,
  },
  {
    name: "MessageItem",
    schema: MessageItem,
    io: "output",
    description:
      "One item of a message listing. The spec shows no fields; it says only that an assistant's message may carry `citations`. " +
      "LIST-8 recommends an object, with `citations` an array when present.",
  },
  {
    name: "MessagePage",
    schema: MessagePage,
    io: "output",
    description: `One page of a conversation's messages: \`page\` at least 1, \`page_size\` from 1 to 100 (an oversized page_size is refused or clamped), at most 100 items. ${OPEN}`,
  },
  {
    name: "CreatedEvent",
    schema: SpecCreatedEvent,
    io: "output",
    description: `Data of the \`response.created\` event. Its payload beyond \`type\` is a gap in the spec. ${OPEN}`,
  },
  {
    name: "DeltaEvent",
    schema: SpecDeltaEvent,
    io: "output",
    description: `Data of the \`response.output_text.delta\` event: one fragment of the answer. ${OPEN}`,
  },
  {
    name: "CompletedEvent",
    schema: SpecCompletedEvent,
    io: "output",
    description: `Data of the \`response.completed\` event: the complete answer. The stream ends after it. ${OPEN}`,
  },
  {
    name: "ErrorEvent",
    schema: SpecErrorEvent,
    io: "output",
    description: `Data of the \`error\` event: the stream fails and ends. ${OPEN}`,
  },
  {
    name: "StreamEvent",
    schema: SpecStreamEvent,
    io: "output",
    description: "The `data:` JSON of any event of the stream; `type` equals the event's `event:` name.",
  },
  {
    name: "NestedErrorBody",
    schema: NestedErrorBody,
    io: "output",
    description: "An error body with the code in `error.code` (the reference fake's shape).",
  },
  {
    name: "FlatErrorBody",
    schema: FlatErrorBody,
    io: "output",
    description: "An error body with a top-level `code` (also RFC 9457's `code` extension member).",
  },
  {
    name: "FastApiErrorBody",
    schema: FastApiErrorBody,
    io: "output",
    description: "FastAPI's `HTTPException(detail={...})`: the code in `detail.code`.",
  },
  {
    name: "JsonApiErrorBody",
    schema: JsonApiErrorBody,
    io: "output",
    description: "A JSON:API error document: the code in `errors[0].code`.",
  },
  {
    name: "ProblemBody",
    schema: ProblemBody,
    io: "output",
    description:
      "RFC 9457 problem details; the code is a `code` member or the last segment of `type` (`about:blank` carries none).",
  },
  {
    name: "ErrorBody",
    schema: ErrorBody,
    io: "output",
    description:
      "The error bodies a client can read a machine-readable code from, in any of the shapes services use. The spec shows no " +
      "error body format: this is a recommendation (ERR-1, SHOULD), not a guarantee; a conforming service may answer an error " +
      "with another body or none.",
  },
  {
    name: "ConversationNotFoundBody",
    schema: errorBodyWithCode(CONVERSATION_NOT_FOUND),
    io: "output",
    description: `An error body, of any of ErrorBody's shapes, whose code is \`${CONVERSATION_NOT_FOUND}\`: the one code the spec names.`,
  },
];
