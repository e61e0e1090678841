/**
 * The requirements catalog: what "conforms" means, one entry per normative statement.
 * IDs are stable once published; add new ones, never renumber.
 *
 * MUST: the spec states it, or it follows necessarily from what it states. A failure fails the run.
 * SHOULD: the spec is silent (a listed gap) and we recommend the common convention.
 *   A failure is a warning; --strict makes it fail.
 */

export type Level = "MUST" | "SHOULD";
export type Family =
  "auth" | "responses" | "idempotency" | "streaming" | "listing" | "delete" | "scope" | "errors" | "client";

export interface Requirement {
  id: string;
  level: Level;
  family: Family;
  /** The SPEC.md section the requirement rests on. */
  section: string;
  /** The spec sentence it rests on (or, for a SHOULD, the gap it fills). */
  spec: string;
  /** One line: what is checked. */
  summary: string;
  /** Client requirements only: what the fake can and cannot see of it from its side of the wire. */
  observation?: ClientObservation;
}

export interface ClientObservation {
  /** Whether the fake records violations of it (each recorded one has tests in fake-server/client-rules). */
  observable: boolean;
  /** Plainly: what the fake sees, and what it cannot see. */
  note: string;
}

// Generic in the id so the catalog keeps each id as a literal type (RequirementId below).
const requirement = <const Id extends string>(
  id: Id,
  level: Level,
  family: Family,
  section: string,
  spec: string,
  summary: string,
): Requirement & { readonly id: Id } => ({ id, level, family, section, spec, summary });

const clientRequirement = <const Id extends string>(
  id: Id,
  level: Level,
  section: string,
  spec: string,
  summary: string,
  observation: ClientObservation,
): Requirement & { readonly id: Id } => ({ id, level, family: "client", section, spec, summary, observation });

export const REQUIREMENTS = [
  // Authentication
  requirement(
    "AUTH-1",
    "MUST",
    "auth",
    "Authentication",
    "Every request carries the header `Authorization: Bearer <API_KEY>`. The key gives access within an authorized scope.",
    "A request with no bearer key, or an unknown key, gets a non-2xx status on every endpoint (create, stream, list, delete), no data, and changes nothing.",
  ),
  requirement(
    "AUTH-2",
    "SHOULD",
    "auth",
    "Authentication",
    "Codes and statuses for authentication failures: not shown.",
    "That status is 401 with `WWW-Authenticate: Bearer`.",
  ),

  // Create a response
  requirement(
    "RESP-1",
    "MUST",
    "responses",
    "Endpoints / 1. Create a response",
    "Response body: Response result (`conversation_id`, `response`, `citations`).",
    "Create returns 2xx JSON `{conversation_id: UUID, response: string, citations: array}`.",
  ),
  requirement(
    "RESP-2",
    "MUST",
    "responses",
    "Resources / Response request",
    "conversation_id: UUID or null — Continues a specific conversation.",
    "A create naming an existing conversation in scope continues it: the same `conversation_id` comes back and its message listing grows.",
  ),
  requirement(
    "RESP-3",
    "SHOULD",
    "responses",
    "Resources / Gaps",
    "Behavior when `conversation_id` is null: not shown.",
    "A create with `conversation_id` absent or null starts a new conversation with a fresh UUID.",
  ),
  requirement(
    "RESP-4",
    "MUST",
    "responses",
    "Resources / Response request",
    "message: string, required — The user's query.",
    "A body without `message`, or with a non-string `message`, is rejected with a 4xx and changes nothing.",
  ),
  requirement(
    "RESP-5",
    "SHOULD",
    "responses",
    "Errors / Gaps",
    "Codes and statuses for validation failures: not shown.",
    "Validation failures are 400 (or 422) with a JSON error body carrying a code.",
  ),
  requirement(
    "RESP-6",
    "MUST",
    "responses",
    "Resources / Response request",
    "external_reference: string or null, optional — Stable client-side correlation value. metadata: object (JSON), optional — Traceability data.",
    "`external_reference` (string or null) and `metadata` (a small flat object of strings) are accepted.",
  ),
  requirement(
    "RESP-7",
    "SHOULD",
    "responses",
    "Resources / Response request",
    "metadata: object (JSON) — the service validates it.",
    "`metadata` that is not a JSON object is rejected with a 4xx.",
  ),
  requirement(
    "RESP-8",
    "SHOULD",
    "responses",
    "Resources / Gaps",
    "A conversation that belongs to another agent or channel cannot be read or deleted through this agent.",
    "Continuing an unknown `conversation_id` is 404 `conversation_not_found`.",
  ),

  // Idempotency
  requirement(
    "IDEM-1",
    "MUST",
    "idempotency",
    "Endpoints / 1. Idempotency rules",
    "The same key with the same payload returns the earlier result and does not consume the operation again.",
    "Same Idempotency-Key and same payload returns the earlier result (same `conversation_id`, `response`, `citations`).",
  ),
  requirement(
    "IDEM-2",
    "MUST",
    "idempotency",
    "Endpoints / 1. Idempotency rules",
    "The same key with the same payload returns the earlier result and does not consume the operation again.",
    "A replay does not consume the operation again: the conversation's `total` is unchanged.",
  ),
  requirement(
    "IDEM-3",
    "MUST",
    "idempotency",
    "Endpoints / 1. Idempotency rules",
    "The same key with a different payload returns HTTP 409.",
    "Same key with a different payload is HTTP 409, and nothing is consumed.",
  ),
  requirement(
    "IDEM-4",
    "MUST",
    "idempotency",
    "Endpoints / 2. Create a response as a stream",
    "Accepts the same body and the same `Idempotency-Key` header as operation 1.",
    "The stream operation honours the same rules: a replay gives the same completed response and consumes nothing; a different payload is 409.",
  ),
  requirement(
    "IDEM-5",
    "MUST",
    "idempotency",
    "Endpoints / 1. Idempotency rules",
    "The same key with the same payload returns the earlier result and does not consume the operation again.",
    "Concurrent requests with the same key and payload take effect at most once (the losers' status, 409 or a replay, is open).",
  ),
  requirement(
    "IDEM-6",
    "SHOULD",
    "idempotency",
    "Endpoints / 1. Create a response",
    "Request headers: `Idempotency-Key: <unique_key>`.",
    "A create without Idempotency-Key is rejected with 400 (or 422).",
  ),
  requirement(
    "IDEM-7",
    "SHOULD",
    "idempotency",
    "Limits",
    "The retention and scope of idempotency keys: not shown.",
    "Keys are scoped per API key and agent: the same key value under another scope never replays another scope's result.",
  ),
  requirement(
    "IDEM-8",
    "SHOULD",
    "idempotency",
    "Endpoints / 1. Idempotency rules",
    "The same key with the same payload returns the earlier result.",
    "Payloads equal as JSON but differing in key order or whitespace count as the same payload.",
  ),
  requirement(
    "IDEM-9",
    "SHOULD",
    "idempotency",
    "Errors / Gaps",
    "Codes and statuses for validation, authentication, authorization and other failures, and the code that accompanies 409: not shown.",
    "The losers of a same-key race get 409 (e.g. `idempotency_key_in_use`) or the replay, never a 5xx.",
  ),

  // Streaming
  requirement(
    "SSE-1",
    "MUST",
    "streaming",
    "Endpoints / 2. Create a response as a stream",
    "The client must send `Accept: text/event-stream` and must check that the response has `Content-Type: text/event-stream`.",
    "The stream answers 2xx with `Content-Type: text/event-stream` (case and parameters ignored).",
  ),
  requirement(
    "SSE-2",
    "MUST",
    "streaming",
    "Endpoints / 2. Create a response as a stream",
    "Each event has an `event:` line naming the event and a `data:` line holding a JSON object with a `type` field equal to the event name.",
    "Each event has an `event:` line and a `data:` line holding JSON whose `type` equals the event name.",
  ),
  requirement(
    "SSE-3",
    "MUST",
    "streaming",
    "Events",
    "Normal order: `response.created`, then zero or more `response.output_text.delta`, then `response.completed`.",
    "`response.created` first, zero or more deltas, `response.completed` last; nothing follows and the response ends. A stream that ends without a terminal event fails.",
  ),
  requirement(
    "SSE-4",
    "MUST",
    "streaming",
    "Events",
    "response.output_text.delta: type (string, equals the event name), delta (string, a text fragment).",
    "A delta payload is `{type, delta: string}`.",
  ),
  requirement(
    "SSE-5",
    "MUST",
    "streaming",
    "Events",
    "response.completed: type (string), response (object: conversation_id UUID, output_text string, citations array).",
    "The completed payload is `{type, response: {conversation_id: UUID, output_text: string, citations: array}}`.",
  ),
  requirement(
    "SSE-6",
    "MUST",
    "streaming",
    "Events",
    "error: code (string), message (string) — The stream fails and ends. An `error` event ends the stream.",
    "An `error` event carries `{code: string, message: string}` and nothing follows it.",
  ),
  requirement(
    "SSE-7",
    "MUST",
    "streaming",
    "What the service does",
    "The same operation exists as a stream of server-sent events, which delivers the answer in text fragments.",
    "The deltas concatenated equal `output_text`.",
  ),
  requirement(
    "SSE-8",
    "MUST",
    "streaming",
    "Resources / Completed response",
    "conversation_id: UUID — Conversation the exchange belongs to.",
    "A streamed exchange belongs to its conversation: the listing shows it and the id can be continued.",
  ),
  requirement(
    "SSE-9",
    "SHOULD",
    "streaming",
    "Endpoints / 2. Client rules",
    "A client reading the stream should not buffer it.",
    "Events are delivered as they are produced, not buffered until the end.",
  ),
  requirement(
    "SSE-10",
    "SHOULD",
    "streaming",
    "Errors / Gaps",
    "Body format of HTTP error responses: not shown.",
    "Failures before the stream starts (auth, validation, 409) are plain HTTP errors with a JSON body, not an event stream.",
  ),

  // Listing
  requirement(
    "LIST-1",
    "MUST",
    "listing",
    "Endpoints / 3. List messages of a conversation",
    "Response body: Message listing page (`conversation`, `items`, `page`, `page_size`, `total`, `has_more`).",
    "Listing returns 2xx JSON `{conversation: {id, created_at, updated_at}, items, page, page_size, total, has_more}` with `conversation.id` the requested id.",
  ),
  requirement(
    "LIST-2",
    "MUST",
    "listing",
    "Endpoints / 3. List messages of a conversation",
    "page: integer, default 1. page_size: integer, default 50.",
    "No parameters means page 1 and page_size 50.",
  ),
  requirement(
    "LIST-3",
    "MUST",
    "listing",
    "Limits",
    "page_size maximum: 100.",
    "A page never holds more than 100 items; page_size above 100 is rejected (4xx) or clamped (echoed as at most 100).",
  ),
  requirement(
    "LIST-4",
    "MUST",
    "listing",
    "Limits",
    "page minimum: 1 (first page).",
    "page or page_size below 1 is never served as if valid: a 4xx, or an echoed page/page_size of at least 1 that matches the items.",
  ),
  requirement(
    "LIST-5",
    "MUST",
    "listing",
    "Resources / Message listing page",
    "page: Page number returned. page_size: Page size used. total: Total number of messages. has_more: Whether further pages exist.",
    "Echoed page/page_size are the ones used; items.length = min(page_size, max(0, total − (page−1)·page_size)); has_more = page·page_size < total; total is stable; pages 1..n hold every message once, in a stable order.",
  ),
  requirement(
    "LIST-6",
    "SHOULD",
    "listing",
    "Resources / Message listing page",
    "has_more: Whether further pages exist.",
    "A page past the last is 2xx with `items: []` and `has_more: false`.",
  ),
  requirement(
    "LIST-7",
    "MUST",
    "listing",
    "Resources / Message listing page",
    "total: Total number of messages (of the conversation listed).",
    "`total` counts this conversation's messages only.",
  ),
  requirement(
    "LIST-8",
    "SHOULD",
    "listing",
    "Resources / Gaps",
    "Fields of a message item; timestamp format of `created_at` and `updated_at`: not shown.",
    "Items are objects; an assistant item's `citations`, when present, is an array; timestamps are RFC 3339; created_at ≤ updated_at, and updated_at advances with a new exchange.",
  ),
  requirement(
    "LIST-9",
    "SHOULD",
    "listing",
    "Endpoints / 4. Delete a conversation",
    "When the conversation does not exist or is outside the authorized scope, the response is HTTP 404 with error code `conversation_not_found`.",
    "Listing an unknown conversation is 404 `conversation_not_found`.",
  ),
  requirement(
    "LIST-10",
    "SHOULD",
    "listing",
    "Errors / Gaps",
    "Codes and statuses for validation failures: not shown. page: integer, starts at 1. page_size: integer.",
    "page or page_size below 1, or not an integer, is answered 400 (or 422).",
  ),
  requirement(
    "LIST-11",
    "SHOULD",
    "listing",
    "What the service does",
    "A client lists the messages of one conversation, page by page.",
    "A finished exchange is listed at once (read-your-writes); warned when the suite had to wait for the listing to settle.",
  ),

  // Delete
  requirement(
    "DEL-1",
    "MUST",
    "delete",
    "Endpoints / 4. Delete a conversation",
    "Deletes the conversation permanently.",
    "Deleting an in-scope conversation is 2xx; afterwards it cannot be listed (4xx), and a second delete is 404 `conversation_not_found`.",
  ),
  requirement(
    "DEL-2",
    "MUST",
    "delete",
    "Endpoints / 4. Delete a conversation",
    "When the conversation does not exist or is outside the authorized scope, the response is HTTP 404 with error code `conversation_not_found`.",
    "Deleting an unknown conversation is 404 with code `conversation_not_found`.",
  ),
  requirement(
    "DEL-3",
    "SHOULD",
    "delete",
    "Endpoints / 4. Delete a conversation",
    "Deletes the conversation permanently.",
    "A deleted conversation cannot be continued (404), and nothing of it comes back.",
  ),

  // Scope
  requirement(
    "SCOPE-1",
    "MUST",
    "scope",
    "What the service does",
    "Conversations are isolated per agent. A conversation that belongs to another agent or channel cannot be read or deleted through this agent.",
    "A conversation created through agent A cannot be listed through agent B: non-2xx and nothing leaked (404 `conversation_not_found` recommended).",
  ),
  requirement(
    "SCOPE-2",
    "MUST",
    "scope",
    "Endpoints / 4. Delete a conversation",
    "Only conversations accessible through that agent can be deleted.",
    "Deleting it through agent B is 404 `conversation_not_found`, and it still exists through agent A.",
  ),
  requirement(
    "SCOPE-3",
    "MUST",
    "scope",
    "Authentication",
    "Conversations of another agent or channel are not reachable (a delete or read outside the scope behaves as not found for delete).",
    "A key of another scope can neither list nor delete it (delete is 404 `conversation_not_found`), and it survives.",
  ),
  requirement(
    "SCOPE-4",
    "MUST",
    "scope",
    "What the service does",
    "Conversations are isolated per agent.",
    "Continuing another scope's conversation never appends to it.",
  ),

  // Errors
  requirement(
    "ERR-1",
    "SHOULD",
    "errors",
    "Errors / Gaps",
    "Body format of HTTP error responses: not shown.",
    "HTTP error responses carry a JSON body with a machine-readable code, read from `error.code`, a top-level `code`, an RFC 9457 problem body (a `code` member, or a `type` ending in the code), FastAPI's `detail.code` or JSON:API's `errors[0].code`.",
  ),

  // Clients: rules the spec sets for callers. The fake judges them from its side of the wire
  // and reports violations (fake-server/client-rules); the suite never checks them.
  clientRequirement(
    "CLIENT-1",
    "MUST",
    "Authentication",
    "Every request carries the header `Authorization: Bearer <API_KEY>`.",
    "Every request under /v1 carries an Authorization header of the form `Bearer <API_KEY>`.",
    {
      observable: true,
      note: "Seen: whether the header is there and has the form `Bearer <token>` (the scheme in any case). A well-formed header with an unknown key is a 401 but not a broken rule. The header's value is never shown.",
    },
  ),
  clientRequirement(
    "CLIENT-2",
    "MUST",
    "Endpoints / 1. Create a response",
    "Request headers: `Authorization: Bearer <API_KEY>`, `Content-Type: application/json`, `Idempotency-Key: <unique_key>`. (The stream accepts the same `Idempotency-Key` header.)",
    "Every create, plain or streamed, carries a non-blank `Idempotency-Key`.",
    { observable: true, note: "Seen: the header on every create and stream request." },
  ),
  clientRequirement(
    "CLIENT-3",
    "MUST",
    "Endpoints / 1. Idempotency rules",
    "A new idempotency key is used for each logical operation. The same key with a different payload returns HTTP 409.",
    "One `Idempotency-Key` is never sent to one agent with two different payloads (compared as JSON, key order and whitespace ignored), on either create operation.",
    {
      observable: true,
      note: "Seen: the key, the agent and a digest of every create body that passed validation and took hold of its key (answered 2xx, or still running). Not seen: two logical operations that send the same payload under one key look exactly like a retry and are treated as one.",
    },
  ),
  clientRequirement(
    "CLIENT-4",
    "MUST",
    "Endpoints / 2. Client rules",
    "A stream that has started is not retried automatically unless the same idempotency key is reused; otherwise the message may be duplicated.",
    "After a started stream ends in an `error` event or a cut connection, its message is not sent again to the same agent and conversation under a new `Idempotency-Key` within the duplicate window (default 10 s).",
    {
      observable: true,
      note: "Seen: streams that started and then failed or were cut, and later creates carrying the same message. Not seen: whether a re-send was automatic or a person's deliberate retry; a re-send within `duplicateWindowMs` is taken as automatic, a likely duplicate, and reported with both requests.",
    },
  ),
  clientRequirement(
    "CLIENT-5",
    "MUST",
    "Endpoints / 2. Create a response as a stream",
    "The client must send `Accept: text/event-stream` and must check that the response has `Content-Type: text/event-stream`.",
    "The stream request carries an `Accept` header that lists `text/event-stream` (with a non-zero q); `*/*` alone does not count.",
    { observable: true, note: "Seen: the Accept header of every stream request. The fake serves the stream anyway." },
  ),
  clientRequirement(
    "CLIENT-6",
    "MUST",
    "Endpoints / 1. Create a response",
    "Request headers: `Authorization: Bearer <API_KEY>`, `Content-Type: application/json`, `Idempotency-Key: <unique_key>`.",
    "Every create, plain or streamed, carries `Content-Type: application/json` (parameters such as charset allowed).",
    { observable: true, note: "Seen: the Content-Type header of every create and stream request." },
  ),
  clientRequirement(
    "CLIENT-7",
    "SHOULD",
    "Limits",
    "Rate limits, message length limits, metadata size limits and the retention time of idempotency keys: not shown.",
    "Retries of one `Idempotency-Key` are paced: more than 5 retries within 10 s that do not wait for the `Retry-After` of the answer before them (sent with no answer yet to an attempt still running, before the Retry-After of the latest answer elapsed, or after an answer without one) is a retry storm.",
    {
      observable: true,
      note: "Seen: when each attempt of a key arrives, and the status and Retry-After of the answers before it. The thresholds are options (`stormWindowMs`, `stormMaxRetries`, `retryAfterSlackMs`). Not seen: retries of requests that carry no Idempotency-Key, which cannot be told from new operations.",
    },
  ),
  clientRequirement(
    "CLIENT-8",
    "MUST",
    "Endpoints / 2. Create a response as a stream",
    "The client must send `Accept: text/event-stream` and must check that the response has `Content-Type: text/event-stream`.",
    "The client checks that the stream response's Content-Type is `text/event-stream` before it reads events.",
    {
      observable: false,
      note: "Not seen: what a client does with an answer happens on its side of the wire. Test it in the client's own tests, against a stub that answers JSON where a stream is expected.",
    },
  ),
  clientRequirement(
    "CLIENT-9",
    "MUST",
    "Endpoints / 2. Client rules",
    "The client closes the connection on completion, on an error event, or on cancellation.",
    "The client stops reading and releases the stream on `response.completed`, on an `error` event and when it cancels.",
    {
      observable: false,
      note: "Not seen: the fake ends every stream itself after its terminal event, so a client that would keep waiting cannot show; a hang-up mid-stream is visible, but that is what an allowed cancellation looks like.",
    },
  ),
  clientRequirement(
    "CLIENT-10",
    "SHOULD",
    "Endpoints / 2. Client rules",
    "A client reading the stream should not buffer it.",
    "The client hands each event on as it arrives rather than waiting for the end of the stream.",
    {
      observable: false,
      note: "Not seen: the fake writes each event as it is produced; whether the client passes them on at once or collects them first happens inside the client.",
    },
  ),
] as const satisfies readonly Requirement[];

/** Every requirement's id: naming one that is not in the catalog fails to compile. */
export type RequirementId = (typeof REQUIREMENTS)[number]["id"];

/** An entry of the catalog, its id known to be one. */
export type CatalogRequirement = Requirement & { readonly id: RequirementId };

const byId = new Map<string, Requirement>(REQUIREMENTS.map((r) => [r.id, r]));

export function requirementById(id: string): Requirement | undefined {
  return byId.get(id);
}

/** The requirements a service is judged on (the CLIENT-n ones bind clients and are judged by the fake). */
export const SERVICE_REQUIREMENTS = REQUIREMENTS.filter((r) => r.family !== "client");
