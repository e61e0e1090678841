/**
 * The OpenAPI parameters of the four operations (the path ids, page and page_size, the
 * Idempotency-Key and Accept headers, X-Fake-Fault), built from the schemas and limits the fake
 * checks with; the contract reuses those the spec states.
 */
import { z } from "zod";
import { Uuid } from "../primitives.ts";
import { MAX_IDEMPOTENCY_KEY_LENGTH } from "../request.ts";
import { MessagePage } from "../resources.ts";
import type { JsonObject } from "./error-responses.ts";

/** The spec's Limits table: the defaults of the listing's query parameters. */
export const PAGE_DEFAULT = 1;
export const PAGE_SIZE_DEFAULT = 50;

/** A standalone JSON Schema of one Zod schema, without the `$schema` a component does not need. */
function inline(schema: z.ZodType): JsonObject {
  const { $schema: _dialect, ...rest } = z.toJSONSchema(schema);
  return rest;
}

/** Components.parameters, referenced by name from the operations. */
export const PARAMETERS: Record<string, JsonObject> = {
  AgentId: {
    name: "agent_id",
    in: "path",
    required: true,
    description: "Identifier of the agent that answers. Its format is not shown in the spec.",
    schema: { type: "string", minLength: 1 },
  },
  ConversationId: {
    name: "conversation_id",
    in: "path",
    required: true,
    description: "The conversation, a UUID. Conversations of another agent or channel are not found.",
    schema: inline(Uuid),
  },
  Page: {
    name: "page",
    in: "query",
    required: false,
    description: `Page number, starting at 1 (default ${PAGE_DEFAULT}). The fake answers 400 \`invalid_pagination\` below 1 or for a non-integer; a page past the last one is empty.`,
    schema: { ...inline(MessagePage.shape.page), default: PAGE_DEFAULT },
  },
  PageSize: {
    name: "page_size",
    in: "query",
    required: false,
    description: `Messages per page (default ${PAGE_SIZE_DEFAULT}, maximum 100 per the spec). The fake answers 400 \`invalid_pagination\` outside 1..100 or for a non-integer; the spec also allows clamping.`,
    schema: { ...inline(MessagePage.shape.page_size), default: PAGE_SIZE_DEFAULT },
  },
  IdempotencyKey: {
    name: "Idempotency-Key",
    in: "header",
    required: true,
    description:
      "A new key for each logical operation. The same key with the same payload returns the earlier result without consuming the " +
      "operation again; with a different payload it is 409. The fake scopes keys by API key and agent, compares payloads as " +
      "canonical JSON (key order and whitespace ignored), shares keys between the plain and the stream operation, " +
      "and keeps records for 24 hours by default. It answers 400 `idempotency_key_missing` without one and " +
      `400 \`idempotency_key_invalid\` for a blank key, one longer than ${MAX_IDEMPOTENCY_KEY_LENGTH} characters, or one with control characters.`,
    schema: { type: "string", minLength: 1, maxLength: MAX_IDEMPOTENCY_KEY_LENGTH },
  },
  AcceptEventStream: {
    name: "Accept",
    in: "header",
    required: true,
    description:
      "The spec requires clients to send `Accept: text/event-stream` on the stream and to check the response's Content-Type. " +
      "The fake streams without it but records the omission as a client-rule warning. " +
      "(OpenAPI tools derive this header from the response media type and ignore this entry.)",
    schema: { type: "string", const: "text/event-stream" },
  },
  FakeFault: {
    name: "X-Fake-Fault",
    in: "header",
    required: false,
    description:
      "Reference fake only (not part of the service): comma-separated `name=value` items that make this one request misbehave. " +
      "`first-event-delay=MS` (pause before the first event, or before the answer), `delta-delay=MS` (pause between deltas), " +
      "`error-after=N` (an `error` event with code `agent_failed` after N deltas), `drop-after=N` (the connection is cut after N deltas), " +
      "`status=429|500|503` (answer that status instead), `retry-after=S` (its Retry-After, with `status`). " +
      "A malformed header, or any header when fault injection is off, is 400 `invalid_request`.",
    schema: { type: "string", examples: ["delta-delay=50,error-after=2", "status=503,retry-after=5"] },
  },
};
