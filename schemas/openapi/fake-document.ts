/**
 * The reference fake's OpenAPI document (openapi/fake.json): the exact shapes, limits, codes and
 * headers it sends, for client developers who generate or test a client against the fake.
 */
import { EVENT } from "../events.ts";
import {
  BAD_FAULT_HEADER,
  INJECTED,
  METHOD_NOT_ALLOWED,
  UNAUTHORIZED,
  errorResponses,
  type ErrorCase,
  type JsonObject,
} from "./error-responses.ts";
import { documentOf, eventStreamContent, parameterRef, schemaRef } from "./frame.ts";
import { componentSchemas } from "./json-schemas.ts";
import { FAKE_SCHEMAS } from "./named-schemas.ts";
import { PARAMETERS } from "./parameters.ts";

const CREATE_ERRORS: readonly ErrorCase[] = [
  {
    status: 400,
    codes: [
      "invalid_json",
      "invalid_request",
      "invalid_metadata",
      "idempotency_key_missing",
      "idempotency_key_invalid",
    ],
    when:
      "The body is not JSON or does not match ResponseRequest, its metadata breaks the fake's limits, the Idempotency-Key " +
      `header is missing or malformed, or ${BAD_FAULT_HEADER}. The spec does not give validation statuses. ` +
      "Validation failures are not stored under the key.",
  },
  UNAUTHORIZED,
  {
    status: 404,
    codes: ["conversation_not_found", "not_found"],
    when:
      "`conversation_id` names a conversation that does not exist, was deleted, or belongs to another agent or channel " +
      "(`conversation_not_found`), or the agent is not available to this API key (`not_found`).",
  },
  METHOD_NOT_ALLOWED,
  {
    status: 409,
    codes: ["idempotency_key_reused", "idempotency_key_in_use"],
    when:
      "The spec's 409: the Idempotency-Key was used before with a different payload (`idempotency_key_reused`; the spec gives no code). " +
      "The fake also answers 409 `idempotency_key_in_use` while a request with the same key is still running. Nothing is consumed.",
  },
  {
    status: 413,
    codes: ["payload_too_large"],
    when: "The body is larger than the fake's limit (1 MiB unless configured otherwise).",
  },
  { status: 415, codes: ["unsupported_media_type"], when: "The Content-Type is not `application/json`." },
  ...INJECTED,
];

const CONVERSATION_NOT_FOUND: ErrorCase = {
  status: 404,
  codes: ["conversation_not_found"],
  when: "The conversation does not exist, was deleted, or is outside the authorized scope (another agent or channel).",
};

const LIST_ERRORS: readonly ErrorCase[] = [
  {
    status: 400,
    codes: ["invalid_pagination", "invalid_request"],
    when:
      "`page` or `page_size` is not an integer in range (page ≥ 1, 1 ≤ page_size ≤ 100; `invalid_pagination`), or " +
      `${BAD_FAULT_HEADER} (\`invalid_request\`). The spec does not say how bad values are answered.`,
  },
  UNAUTHORIZED,
  CONVERSATION_NOT_FOUND,
  METHOD_NOT_ALLOWED,
  ...INJECTED,
];

const DELETE_ERRORS: readonly ErrorCase[] = [
  { status: 400, codes: ["invalid_request"], when: `Sent for ${BAD_FAULT_HEADER}.` },
  UNAUTHORIZED,
  { ...CONVERSATION_NOT_FOUND, when: `${CONVERSATION_NOT_FOUND.when} The spec names this status and code.` },
  METHOD_NOT_ALLOWED,
  ...INJECTED,
];

const REPLAYED_HEADER: JsonObject = {
  "Idempotent-Replayed": {
    description:
      "`true` when this is the stored result of an earlier request with the same Idempotency-Key and payload (sent by the fake).",
    schema: { type: "string", const: "true" },
  },
};

const REQUEST_BODY: JsonObject = {
  required: true,
  description:
    "The user's message. The spec guarantees the four fields and their types; the limits in the schema " +
    "(message length, external_reference length, metadata size) are the reference fake's, which it rejects with 400.",
  content: { "application/json": { schema: schemaRef("ResponseRequest") } },
};

const STREAM_BODY =
  "The event stream as the fake writes it: `event:` and `data:` lines, events separated by a blank line.";

const STREAM_DESCRIPTION = [
  "A server-sent event stream (`Content-Type: text/event-stream`). Each event has an `event:` line naming it and a `data:` line",
  "holding one JSON object whose `type` equals the event name; the media type's `x-event-data` (StreamEvent) describes that object.",
  "",
  `- \`${EVENT.created}\` (CreatedEvent): first; the stream has started.`,
  `- \`${EVENT.delta}\` (DeltaEvent): zero or more fragments of the answer, which concatenate to the final text.`,
  `- \`${EVENT.completed}\` (CompletedEvent): last on success; the stream ends.`,
  `- \`${EVENT.error}\` (ErrorEvent): the stream fails and ends; nothing follows it. The fake sends \`agent_failed\` when \`X-Fake-Fault: error-after=N\` asks for it.`,
  "",
  "A replay under the same Idempotency-Key and payload re-emits the stored answer. Failures before the stream starts",
  "(authentication, validation, 409) are plain HTTP errors with a JSON body. Example:",
  "",
  "```",
  `event: ${EVENT.created}`,
  `data: {"type":"${EVENT.created}","conversation_id":"0b7e2c3a-2f4e-4c1e-9d8a-5b6c7d8e9f01"}`,
  "",
  `event: ${EVENT.delta}`,
  `data: {"type":"${EVENT.delta}","delta":"Hello"}`,
  "",
  `event: ${EVENT.completed}`,
  `data: {"type":"${EVENT.completed}","response":{"conversation_id":"0b7e2c3a-2f4e-4c1e-9d8a-5b6c7d8e9f01","output_text":"Hello","citations":[]}}`,
  "```",
].join("\n");

const DESCRIPTION = [
  "The Conversational Agent Service as the reference fake implements it: the spec, with the fake's choices in the spec's gaps.",
  "For client developers who test against the fake. A service is held to the contract (`openapi.json`), not to this document:",
  "another conforming service may answer other statuses, error bodies and fields.",
  "",
  "Where the spec is silent (success statuses, error body format and codes other than `conversation_not_found`, message and",
  "citation fields, timestamp format, metadata rules, limits) this document shows what the reference fake does, and each",
  "description says what the spec itself guarantees. The fake answers 404 `not_found` for a path it does not know.",
].join("\n");

/** The reference fake's document: the exact shapes, limits, codes and headers it sends (openapi/fake.json). */
export function fakeDocument(): JsonObject {
  return documentOf({
    title: "Conversational Agent Service: the reference fake",
    description: DESCRIPTION,
    pathParameters: [parameterRef("FakeFault")],
    requestBody: REQUEST_BODY,
    create: {
      description:
        "Sends a message to the agent and returns its full answer with citations and the conversation's id. Idempotent under Idempotency-Key.",
      parameters: [parameterRef("IdempotencyKey")],
      responses: {
        "200": {
          description: "The agent's answer. The spec does not give the success status; the fake answers 200.",
          headers: REPLAYED_HEADER,
          content: { "application/json": { schema: schemaRef("ResponseResult") } },
        },
        ...errorResponses(CREATE_ERRORS),
      },
    },
    stream: {
      description:
        "The same operation as createResponse, delivered as server-sent events. Same body and Idempotency-Key rules.",
      parameters: [parameterRef("IdempotencyKey"), parameterRef("AcceptEventStream")],
      responses: {
        "200": { description: STREAM_DESCRIPTION, headers: REPLAYED_HEADER, content: eventStreamContent(STREAM_BODY) },
        ...errorResponses(CREATE_ERRORS),
      },
    },
    list: {
      description: "One page of the conversation's messages, oldest first (the order is the fake's choice).",
      parameters: [parameterRef("Page"), parameterRef("PageSize")],
      responses: {
        "200": {
          description: "The page. The spec does not give the success status; the fake answers 200.",
          content: { "application/json": { schema: schemaRef("MessagePage") } },
        },
        ...errorResponses(LIST_ERRORS),
      },
    },
    remove: {
      description:
        "Deletes the conversation permanently. Only conversations accessible through this agent can be deleted.",
      parameters: [],
      responses: {
        "204": {
          description:
            "Deleted. The spec shows neither the success status nor a body; the fake answers 204 with no body.",
        },
        ...errorResponses(DELETE_ERRORS),
      },
    },
    schemas: componentSchemas(FAKE_SCHEMAS),
    parameters: PARAMETERS,
    bearerDescription:
      "`Authorization: Bearer <API_KEY>` on every request. A key reaches conversations within its scope only; " +
      "the fake grants a key a set of agents on one channel. Issuing and rotating keys is not shown in the spec.",
  });
}
