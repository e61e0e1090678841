/**
 * The service's contract (openapi/openapi.json): what every conforming service answers, open
 * exactly where the spec is silent, so that a validator fed this document (Prism, Dredd,
 * Schemathesis) fails a service only for what the suite fails it for. What the suite merely
 * recommends (its SHOULD requirements) is said in descriptions, never enforced.
 */
import { CONVERSATION_NOT_FOUND } from "../errors.ts";
import { EVENT } from "../events.ts";
import { CONTRACT_SCHEMAS } from "./contract-schemas.ts";
import type { JsonObject } from "./error-responses.ts";
import { documentOf, eventStreamContent, parameterRef, schemaRef } from "./frame.ts";
import { componentSchemas } from "./json-schemas.ts";
import { PAGE_DEFAULT, PAGE_SIZE_DEFAULT, PARAMETERS as FAKE_PARAMETERS } from "./parameters.ts";

const DESCRIPTION = [
  "The Conversational Agent Service as its spec defines it: what every conforming service answers. Hold a service to this document.",
  "",
  "Where the spec is silent the document is open: a success is any 2xx; an error is the spec's status where it names one",
  "(409 for a reused Idempotency-Key, 404 `conversation_not_found` for a delete) and any 4xx or 5xx otherwise, with any body or none;",
  "citations, message items and the payload of `response.created` are any JSON; timestamps are strings or numbers; every object",
  "may carry fields the spec does not name; limits are the service's own; the stream's Content-Type may carry parameters.",
  "What the conformance suite recommends beyond the spec (its SHOULD requirements, e.g. ERR-1's error bodies, collected under",
  "ErrorBody) is named in the descriptions and not enforced. The reference fake's exact choices are a separate document, `fake.json`.",
].join("\n");

const PARAMETERS: Record<string, JsonObject> = {
  AgentId: FAKE_PARAMETERS["AgentId"] ?? {},
  ConversationId: FAKE_PARAMETERS["ConversationId"] ?? {},
  Page: {
    name: "page",
    in: "query",
    required: false,
    description:
      `Page number, starting at 1 (default ${PAGE_DEFAULT}). A page below 1 or not an integer is refused with a 4xx or served as a ` +
      "valid page that the answer echoes (LIST-4; LIST-10 recommends 400 or 422). LIST-6 recommends an empty page past the last one.",
    schema: { type: "integer", minimum: 1, default: PAGE_DEFAULT },
  },
  PageSize: {
    name: "page_size",
    in: "query",
    required: false,
    description:
      `Messages per page (default ${PAGE_SIZE_DEFAULT}, maximum 100). Above 100 it is refused with a 4xx or clamped and echoed as ` +
      "at most 100 (LIST-3); below 1 or not an integer as for `page`.",
    schema: { type: "integer", minimum: 1, maximum: 100, default: PAGE_SIZE_DEFAULT },
  },
  IdempotencyKey: {
    name: "Idempotency-Key",
    in: "header",
    required: true,
    description:
      "A new key for each logical operation. The same key with the same payload returns the earlier result without consuming the " +
      "operation again; with a different payload it is 409. The plain and the stream operation honour the same rules. " +
      "Its length limit and retention are not shown; IDEM-7 recommends scoping keys per API key and agent, IDEM-8 comparing " +
      "payloads as JSON, and IDEM-6 refusing a create without a key with 400 or 422.",
    schema: { type: "string", minLength: 1 },
  },
  AcceptEventStream: {
    name: "Accept",
    in: "header",
    required: true,
    description:
      "The client must send `Accept: text/event-stream` and must check that the response's Content-Type is `text/event-stream`. " +
      "(OpenAPI tools derive this header from the response media type and ignore this entry.)",
    schema: { type: "string", pattern: "text/event-stream" },
  },
};

const REQUEST_BODY: JsonObject = {
  required: true,
  description:
    "The user's message: the spec's four fields. Limits are the service's own; it validates `metadata` as it chooses.",
  content: { "application/json": { schema: schemaRef("ResponseRequest") } },
};

const RETRY_AFTER: JsonObject = {
  "Retry-After": {
    description: "RFC 9110 `Retry-After`, when the service says how long to wait before trying again.",
    schema: { type: "string" },
  },
};

/** A status with any body or none: the spec shows no error body format. */
const anyBody = (description: string, headers?: JsonObject): JsonObject => ({
  description,
  ...(headers === undefined ? {} : { headers }),
});

const ANY_BODY =
  "The body is not specified: any, or none. ERR-1 recommends a JSON body with a machine-readable code in one of ErrorBody's shapes.";

const SERVER_ERROR = anyBody(
  `A failure of the service, e.g. 503 with Retry-After when it is overloaded. ${ANY_BODY}`,
  RETRY_AFTER,
);

const CREATE_REFUSALS = [
  "Any other refusal: the spec gives no statuses or codes for authentication, validation, authorization or other failures.",
  "Recommended: 401 with `WWW-Authenticate: Bearer` without a valid key (AUTH-2); 400 or 422 for a body, key or header the",
  "service refuses (RESP-5, IDEM-6); 404 `conversation_not_found` for a `conversation_id` that does not exist, was deleted or is",
  `outside the key's scope (RESP-8); 429 with Retry-After when rate limited. A refusal consumes nothing. ${ANY_BODY}`,
].join(" ");

const REUSED_KEY = anyBody(
  "The same Idempotency-Key with a different payload: the spec's 409, whose code it does not give. Nothing is consumed. " +
    `A request whose key a running request holds may also be answered 409 (IDEM-5, IDEM-9). ${ANY_BODY}`,
  RETRY_AFTER,
);

const createResponses = (success: JsonObject): JsonObject => ({
  "2XX": success,
  "409": REUSED_KEY,
  "4XX": anyBody(CREATE_REFUSALS, RETRY_AFTER),
  "5XX": SERVER_ERROR,
});

const STREAM_DESCRIPTION = [
  "A server-sent event stream: the Content-Type is `text/event-stream` (parameters such as `charset` allowed). The spec does not",
  "give the success status: any 2xx. Each event has an `event:` line naming it and a `data:` line holding one JSON object whose",
  "`type` equals the event name; the media type's `x-event-data` (StreamEvent) describes that object. Other SSE fields (`id:`,",
  "`retry:`, comments) and any line ending SSE allows may appear.",
  "",
  `- \`${EVENT.created}\`: first; the stream has started. Its payload beyond \`type\` is not shown.`,
  `- \`${EVENT.delta}\`: zero or more fragments of the answer, which concatenate to \`output_text\`.`,
  `- \`${EVENT.completed}\`: last on success; the stream ends.`,
  `- \`${EVENT.error}\`: the stream fails and ends; nothing follows it.`,
  "",
  "Failures before the stream starts are HTTP errors (SSE-10 recommends a JSON body, not an event stream).",
].join("\n");

const CONVERSATION_NOT_FOUND_CONTENT: JsonObject = Object.fromEntries(
  ["application/json", "application/problem+json", "application/vnd.api+json"].map((type) => [
    type,
    { schema: schemaRef("ConversationNotFoundBody") },
  ]),
);

/** The service's contract: what every conforming service answers (openapi/openapi.json). */
export function contractDocument(): JsonObject {
  return documentOf({
    title: "Conversational Agent Service",
    description: DESCRIPTION,
    pathParameters: [],
    requestBody: REQUEST_BODY,
    create: {
      description:
        "Sends a message to the agent and returns its full answer with citations and the conversation's id. Idempotent under Idempotency-Key.",
      parameters: [parameterRef("IdempotencyKey")],
      responses: createResponses({
        description: "The agent's answer. The spec does not give the success status: any 2xx.",
        content: { "application/json": { schema: schemaRef("ResponseResult") } },
      }),
    },
    stream: {
      description:
        "The same operation as createResponse, delivered as server-sent events. Same body and Idempotency-Key rules.",
      parameters: [parameterRef("IdempotencyKey"), parameterRef("AcceptEventStream")],
      responses: createResponses({
        description: STREAM_DESCRIPTION,
        content: eventStreamContent(
          "The event stream as text: `event:` and `data:` lines, events separated by a blank line.",
        ),
      }),
    },
    list: {
      description: "One page of the conversation's messages, in an order that stays the same from page to page.",
      parameters: [parameterRef("Page"), parameterRef("PageSize")],
      responses: {
        "2XX": {
          description: "The page. The spec does not give the success status: any 2xx.",
          content: { "application/json": { schema: schemaRef("MessagePage") } },
        },
        "4XX": anyBody(
          "A conversation that does not exist, was deleted or is outside the key's scope is not listed: a 4xx, and nothing of it " +
            "(LIST-9 recommends 404 `conversation_not_found`). Refusals of the key or the page parameters as for createResponse. " +
            ANY_BODY,
          RETRY_AFTER,
        ),
        "5XX": SERVER_ERROR,
      },
    },
    remove: {
      description:
        "Deletes the conversation permanently. Only conversations accessible through this agent can be deleted.",
      parameters: [],
      responses: {
        "2XX": {
          description: "Deleted. The spec shows neither the success status nor a body: any 2xx, with any body or none.",
        },
        "404": {
          description:
            `The conversation does not exist, was deleted, or is outside the authorized scope: the spec's 404 with error code \`${CONVERSATION_NOT_FOUND}\`, ` +
            "carried in a JSON body of any of ErrorBody's shapes.",
          content: CONVERSATION_NOT_FOUND_CONTENT,
        },
        "4XX": anyBody(
          `Any other refusal, e.g. of the key (AUTH-2 recommends 401 with \`WWW-Authenticate: Bearer\`). ${ANY_BODY}`,
          RETRY_AFTER,
        ),
        "5XX": SERVER_ERROR,
      },
    },
    schemas: componentSchemas(CONTRACT_SCHEMAS),
    parameters: PARAMETERS,
    bearerDescription:
      "`Authorization: Bearer <API_KEY>` on every request. The key gives access within an authorized scope; conversations of " +
      "another agent or channel are not reachable. How keys are issued, rotated or scoped is not shown in the spec.",
  });
}
