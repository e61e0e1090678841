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
import { componentSchemas } from "./json-schemas.ts";
import { PARAMETERS, ref } from "./parameters.ts";

const schemaRef = (name: string): JsonObject => ({ $ref: `#/components/schemas/${name}` });

const CREATE_ERRORS: readonly ErrorCase[] = [
  {
    status: 400,
    codes: ["invalid_json", "invalid_request", "invalid_metadata", "idempotency_key_missing", "idempotency_key_invalid"],
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
  { status: 413, codes: ["payload_too_large"], when: "The body is larger than the fake's limit (1 MiB unless configured otherwise)." },
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
    description: "`true` when this is the stored result of an earlier request with the same Idempotency-Key and payload (sent by the fake).",
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

const STREAM_DESCRIPTION = [
  "A server-sent event stream (`Content-Type: text/event-stream`). Each event has an `event:` line naming it and a `data:` line",
  "holding one JSON object whose `type` equals the event name; the schema describes that `data` object.",
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
  "The Conversational Agent Service as specified, with the reference fake's choices in the spec's gaps.",
  "",
  "Where the spec is silent (success statuses, error body format and codes other than `conversation_not_found`, message and",
  "citation fields, timestamp format, metadata rules, limits) this document shows what the reference fake does, and each",
  "description says what the spec itself guarantees. The fake answers 404 `not_found` for a path it does not know.",
].join("\n");

/** The OpenAPI 3.1 document of the service. */
export function openApiDocument(): JsonObject {
  return {
    openapi: "3.1.0",
    info: {
      title: "Conversational Agent Service",
      version: "1.0.0",
      description: DESCRIPTION,
    },
    jsonSchemaDialect: "https://json-schema.org/draft/2020-12/schema",
    servers: [
      {
        url: "{base_url}",
        description: "The deployment's base address; every path begins with the version segment /v1.",
        variables: { base_url: { default: "http://127.0.0.1:4010", description: "Base address, e.g. the URL the fake prints on start." } },
      },
    ],
    security: [{ bearerAuth: [] }],
    tags: [
      { name: "responses", description: "Answers to user messages, plain or streamed." },
      { name: "conversations", description: "Reading and deleting conversations." },
    ],
    paths: {
      "/v1/agents/{agent_id}/responses": {
        parameters: [ref("AgentId"), ref("FakeFault")],
        post: {
          operationId: "createResponse",
          tags: ["responses"],
          summary: "Create a response",
          description: "Sends a message to the agent and returns its full answer with citations and the conversation's id. Idempotent under Idempotency-Key.",
          parameters: [ref("IdempotencyKey")],
          requestBody: REQUEST_BODY,
          responses: {
            "200": {
              description: "The agent's answer. The spec does not give the success status; the fake answers 200.",
              headers: REPLAYED_HEADER,
              content: { "application/json": { schema: schemaRef("ResponseResult") } },
            },
            ...errorResponses(CREATE_ERRORS),
          },
        },
      },
      "/v1/agents/{agent_id}/responses/stream": {
        parameters: [ref("AgentId"), ref("FakeFault")],
        post: {
          operationId: "createResponseStream",
          tags: ["responses"],
          summary: "Create a response as a stream",
          description: "The same operation as createResponse, delivered as server-sent events. Same body and Idempotency-Key rules.",
          parameters: [ref("IdempotencyKey"), ref("AcceptEventStream")],
          requestBody: REQUEST_BODY,
          responses: {
            "200": {
              description: STREAM_DESCRIPTION,
              headers: REPLAYED_HEADER,
              content: { "text/event-stream": { schema: schemaRef("StreamEvent") } },
            },
            ...errorResponses(CREATE_ERRORS),
          },
        },
      },
      "/v1/agents/{agent_id}/conversations/{conversation_id}/messages": {
        parameters: [ref("AgentId"), ref("ConversationId"), ref("FakeFault")],
        get: {
          operationId: "listMessages",
          tags: ["conversations"],
          summary: "List messages of a conversation",
          description: "One page of the conversation's messages, oldest first (the order is the fake's choice).",
          parameters: [ref("Page"), ref("PageSize")],
          responses: {
            "200": {
              description: "The page. The spec does not give the success status; the fake answers 200.",
              content: { "application/json": { schema: schemaRef("MessagePage") } },
            },
            ...errorResponses(LIST_ERRORS),
          },
        },
      },
      "/v1/agents/{agent_id}/conversations/{conversation_id}": {
        parameters: [ref("AgentId"), ref("ConversationId"), ref("FakeFault")],
        delete: {
          operationId: "deleteConversation",
          tags: ["conversations"],
          summary: "Delete a conversation",
          description: "Deletes the conversation permanently. Only conversations accessible through this agent can be deleted.",
          responses: {
            "204": { description: "Deleted. The spec shows neither the success status nor a body; the fake answers 204 with no body." },
            ...errorResponses(DELETE_ERRORS),
          },
        },
      },
    },
    components: {
      schemas: componentSchemas(),
      parameters: PARAMETERS,
      securitySchemes: {
        bearerAuth: {
          type: "http",
          scheme: "bearer",
          description:
            "`Authorization: Bearer <API_KEY>` on every request. A key reaches conversations within its scope only; " +
            "the fake grants a key a set of agents on one channel. Issuing and rotating keys is not shown in the spec.",
        },
      },
    },
  };
}
