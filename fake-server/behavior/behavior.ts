/**
 * The fake's choices, gathered in one plain object so that a variant (another legal choice
 * in the spec's gaps, variants/variants.ts) or a mutant (one requirement deliberately broken,
 * variants/mutants.ts) is a different object instead of a fork of the code. Each field is read only
 * where the note beside it says (read-by-notes.test.ts holds the notes to the code); a switch of a
 * create's checks also by `hooksFor` (exchange/hooks.ts), which installs the hook that acts on it.
 * DEFAULT_BEHAVIOR is the conforming reference fake.
 */

export type Operation = "create" | "stream" | "list" | "delete";

/**
 * Where the conversation id comes from when scope is checked (access/scope.ts `findInScope`):
 * continuing it with a plain create or with a stream, listing it, deleting it.
 */
export type ScopedOperation = "continue" | "continue-stream" | "list" | "delete";

/** How an LLM-like agent paces its answer (deployment/pacing.ts holds the numbers). */
export interface Pacing {
  /** Pause before the first stream event. */
  readonly firstEventMs: number;
  /** Pause before each delta and before the terminal event. */
  readonly deltaDelayMs: number;
}

/** A token bucket per API key (deployment/rate-limit.ts holds the numbers). */
export interface RateLimit {
  /** Tokens a key starts with and at most holds: the burst it may send at once. */
  readonly capacity: number;
  /** Tokens added per second. */
  readonly refillPerSecond: number;
}

/**
 * Deliberate breakage, all off in DEFAULT_BEHAVIOR. Each switch breaks one requirement of
 * requirements/catalog.ts and is turned on only by a mutant.
 */
export interface Breakage {
  /** A request without a valid key is served as the first configured key on this operation; read by `skippedAuthGrant` (access/bearer.ts). */
  readonly authSkippedOn: Operation | null;
  /** The create result's conversation_id loses its dashes; read by `sendResult` (routes/create-response.ts). */
  readonly createIdNotUuid: boolean;
  /** `conversation_id` in a create body is ignored; read by `hooksFor` (exchange/hooks.ts). */
  readonly continueStartsNew: boolean;
  /** A create refused by validation still holds its Idempotency-Key; read by `hooksFor` (exchange/hooks.ts). */
  readonly validationConsumesKey: boolean;
  /** An overloaded create (`overloadEvery`) is committed first and its key forgotten, then answered 503; read by `overloadFor` (deployment/overload.ts). */
  readonly overloadAfterCommit: boolean;
  /** Under `listingLagMs`, only a conversation's first exchange ever reaches the listing; read by `listedCount` (deployment/listing-lag.ts). */
  readonly continuationsNeverListed: boolean;
  /** A body without a string `message` is served with a stand-in message; read by `validateResponseRequest`. */
  readonly messageOptional: boolean;
  /** Any `metadata` is refused with 400 invalid_metadata; read by `validateResponseRequest`. */
  readonly metadataRejected: boolean;
  /** A plain replay answers another text than the original; read by `hooksFor` and `replayOf` (exchange/hooks.ts). */
  readonly replayAltersAnswer: boolean;
  /** A plain replay appends the exchange again; read by `hooksFor` and `replayOf` (exchange/hooks.ts). */
  readonly replayAppends: boolean;
  /** What a key reused with another payload gets; read by `hooksFor` (exchange/hooks.ts). */
  readonly conflict: "409" | "422" | "replay";
  /** false: a key is recorded only when its operation completes, so simultaneous requests all run; read by `hooksFor` and `visibilityOf` (exchange/hooks.ts). */
  readonly inFlightReservation: boolean;
  /** false: the stream operation neither looks up nor records keys; read by `hooksFor` and `visibilityOf` (exchange/hooks.ts). */
  readonly streamIdempotency: boolean;
  /** Content-Type of an event stream; read by `startEventStream` (http/sse.ts). */
  readonly streamContentType: string;
  /** response.created carries another `type` than its event name; read by `eventPayload` (http/sse.ts). */
  readonly createdTypeMismatch: boolean;
  /** Deltas are written without their `event:` line; read by `writeEvent` (http/sse.ts). */
  readonly deltaEventLine: boolean;
  /** Name of the delta's text field; read by `eventPayload`. */
  readonly deltaField: "delta" | "text";
  /** Name of the completed response's text field; read by `eventPayload`. */
  readonly completedTextField: "output_text" | "response";
  /** The first delta overtakes response.created; read by `playStream` (commit/play-stream.ts). */
  readonly deltaBeforeCreated: boolean;
  /** How many response.completed events end a stream (0: it just stops); read by `playStream`. */
  readonly completedEvents: 0 | 1 | 2;
  /** A delta follows the error event; read by `playStream`. */
  readonly eventsAfterError: boolean;
  /** Every delta is trimmed, so they no longer reassemble; read by `splitIntoDeltas` and `deltasOf` (answers/split.ts). */
  readonly deltasTrimmed: boolean;
  /** false: a streamed exchange is never appended to its conversation; read by `commitAnswered` (commit/commit.ts). */
  readonly streamStored: boolean;
  /**
   * A stream whose client left before the end keeps its user message but loses its answer (stored
   * after the last event, by code a cancelled generator never reaches); read by `answerWatch`
   * (commit/answer-watch.ts).
   */
  readonly answerLostWhenClientLeaves: boolean;
  /** Every event is held back and written in one piece when the stream ends; read by `writeEvent` (http/sse.ts). */
  readonly streamBuffered: boolean;
  /** A validation failure on the stream is a 200 event stream holding one error event; read by `AS_EVENTS.refused` (routes/stream-response.ts). */
  readonly streamValidationAsEvents: boolean;
  /** The listing names another conversation id than the one requested; read by `listMessages`. */
  readonly listingOtherId: boolean;
  /** page=0 is accepted and served; read by `parsePagination` (conversations/pagination.ts). */
  readonly pageZeroServed: boolean;
  /** page=0 is served as page 1 and echoed as 1; read by `parsePagination`. */
  readonly pageZeroAsFirst: boolean;
  /** Pages after the first start one item early; read by `slicePage`. */
  readonly pageOffsetOffByOne: boolean;
  /** has_more is true on a last page that ends exactly at `total`; read by `slicePage`. */
  readonly hasMoreAtExactEnd: boolean;
  /** `total` counts every message of the agent and channel; read by `listMessages`. */
  readonly totalCountsScope: boolean;
  /** false: a delete answers success and removes nothing; read by `deleteConversation` (routes/delete-conversation.ts). */
  readonly deleteRemoves: boolean;
  /**
   * What continuing a deleted conversation's id does: 404 ("gone"), bring it back with its
   * messages ("restored") or start an empty one under that id ("reused"); read in access/scope.ts
   * by `keepsDeleted` (a delete keeps it aside) and `reviveDeleted`.
   */
  readonly deletedConversations: "gone" | "restored" | "reused";
  /** The code of a delete's 404; read by `conversationToDelete` (routes/delete-conversation.ts). */
  readonly deleteNotFoundCode: "conversation_not_found" | "not_found";
  /** Operations that find a conversation of another agent (same channel); read by `findInScope` (access/scope.ts). */
  readonly agentIgnoredOn: readonly ScopedOperation[];
  /** Operations that find a conversation of another channel (same agent); read by `findInScope`. */
  readonly channelIgnoredOn: readonly ScopedOperation[];
  /** A continuation on this operation is not stored when its conversation changed while it was generated; read by `versionAtStart` (commit/optimistic-lock.ts). */
  readonly droppedOnConflictOn: "create" | "stream" | null;
  /** A key in flight is held against its own operation only (completed records stay shared); read by `hooksFor` and `visibilityOf` (exchange/hooks.ts). */
  readonly inFlightPerOperation: boolean;
  /** An exchange writes back, when it finishes, the conversation it read at its start if a delete removed it meanwhile; read by `readAtStart` (commit/write-back.ts). */
  readonly exchangeWritesBack: boolean;
  /** A replay answers the conversation's latest assistant message instead of its own result; read by `hooksFor` and `replayOf` (exchange/hooks.ts). */
  readonly replayAnswersLatestTurn: boolean;
  /** A replay of a key whose conversation was deleted brings the conversation back with that exchange; read by `hooksFor` and `replayOf` (exchange/hooks.ts). */
  readonly replayRestoresDeleted: boolean;
  /** `page` given without `page_size`: this page size instead of the default (null: the default); read by `parsePagination` (conversations/pagination.ts). */
  readonly pageAloneDefaultSize: number | null;
  /** A streamed exchange leaves the conversation's `updated_at` where it was; read by `updatedAtKeeper` (commit/frozen-updated-at.ts). */
  readonly streamFreezesUpdatedAt: boolean;
  /** Replicas that share the conversations but each keep their own idempotency records, one per connection (1: one process); read by `replicasFor` (deployment/replicas.ts) and `hooksFor` (exchange/hooks.ts). */
  readonly idempotencyReplicas: number;
  /** A request whose key is still in flight is answered 500 instead of 409 idempotency_key_in_use; read by `hooksFor` (exchange/hooks.ts). */
  readonly inFlightLoserFails: boolean;
  /**
   * One endpoint compares a key's payload without one field (an older fingerprint that never
   * covered it), so a body differing only there replays; read by `looseFingerprint` and
   * `looseReplay` (exchange/loose-fingerprint.ts), and by `hooksFor` (exchange/hooks.ts), which installs their hooks.
   */
  readonly fingerprintSkips: {
    readonly on: "create" | "stream";
    readonly field: "metadata" | "external_reference" | "conversation_id";
  } | null;
  /**
   * A key with no record of its own is matched to an earlier key with the same payload: ignoring
   * case, for plain continuations ("case-insensitive-turns"), or by its first 40 characters, for
   * new conversations on both endpoints ("first-40-new-conversations"); read by `collidingOutcome`
   * (exchange/key-collation.ts), whose hook `hooksFor` (exchange/hooks.ts) installs.
   */
  readonly keyCollation: "case-insensitive-turns" | "first-40-new-conversations" | null;
  /**
   * How one endpoint's storage alters the user message it keeps: 4-byte characters as "?"
   * (MySQL utf8mb3), JSON-escaped a second time, or cut after 1,024 characters; read by
   * `storedUserText` (commit/message-column.ts).
   */
  readonly messageColumn: {
    readonly on: "create" | "stream";
    readonly alters: "astral-as-question-marks" | "escaped-twice" | "first-1024";
  } | null;
  /** On this endpoint an exchange whose text the conversation already holds only moves `updated_at`; read by `mergedIntoSameText` (commit/same-text-upsert.ts). */
  readonly sameTextMergedOn: "create" | "stream" | null;
  /**
   * A new conversation whose external_reference an earlier new conversation of the same agent and
   * channel carried continues that one instead; read by `reopenedByReference` and
   * `rememberReference` (exchange/external-reference.ts), and by `hooksFor` (exchange/hooks.ts).
   */
  readonly externalReferenceReopens: boolean;
  /**
   * What a stream under the key of a fresh stream its client left before the end gets: a new
   * run ("rerun") or 409 idempotency_key_in_use forever ("locked"); plain replays are right.
   * Read by `deliveryWatch` and `droppedStreamLookup` (idempotency/dropped-streams.ts), the
   * latter's hook installed by `hooksFor` (exchange/hooks.ts).
   */
  readonly droppedStreamKey: "rerun" | "locked" | null;
  /** `metadata: {}` is refused with 400 invalid_metadata on both endpoints; read by `refuseAllowedShapes` (exchange/validate-request.ts). */
  readonly emptyMetadataRefused: boolean;
  /** The stream refuses `external_reference: null` with 400 invalid_request; read by `refuseAllowedShapes` (exchange/validate-request.ts). */
  readonly streamNullReferenceRefused: boolean;
  /**
   * The stream serves a request without a valid key when its body names an existing
   * conversation, as a key of that conversation's channel and agent (the stream route then
   * authenticates by the body: exchange/auth-by-conversation.ts); read by `authDeferredToBody` (access/bearer.ts).
   */
  readonly streamAuthByConversation: boolean;
  /** An accepted `page_size` above this is served (and echoed) as this (null: no cap below the maximum); read by `parsePagination` (conversations/pagination.ts). */
  readonly pageSizeCap: number | null;
}

export interface Behavior {
  /** Success statuses per operation; read only by `successStatus` (http/respond.ts). */
  readonly successStatus: {
    readonly create: number;
    readonly stream: number;
    readonly list: number;
    readonly delete: number;
  };
  /** Listing page sizes; read only by `parsePagination` (conversations/pagination.ts). */
  readonly pageSize: { readonly default: number; readonly max: number };
  /** page_size above the maximum: 400 ("reject") or served as the maximum ("clamp"); read by `parsePagination`. */
  readonly oversizePageSize: "reject" | "clamp";
  /** Line ending of every SSE line; read only by `startEventStream` (its `retry:` line) and `writeEvent` (http/sse.ts). */
  readonly sseLineEnding: string;
  /** `: keep-alive` comments between events and a `retry:` line first; read by `startEventStream` and `writeEvent`. */
  readonly sseHeartbeats: boolean;
  /** An `id:` line on every event; read by `writeEvent`. */
  readonly sseEventIds: boolean;
  /** Each event is written in several pieces cut at arbitrary bytes; read by `writeEvent`. */
  readonly sseSplitWrites: boolean;
  /** How many deltas an answer is split into; read only by `splitIntoDeltas` (answers/split.ts). */
  readonly deltaCount: { readonly min: number; readonly max: number };
  /** Shape of HTTP error bodies; read only by `sendError` (http/respond.ts). */
  readonly errorFormat: "nested" | "flat" | "problem" | "fastapi" | "jsonapi";
  /** A successful delete's body: none, or the deleted conversation; read by `deleteConversation`. */
  readonly deleteBody: "none" | "conversation";
  /** Timestamps on the wire; read only by `wireTimestamp` (conversations/timestamps.ts). */
  readonly timestamps: "rfc3339" | "epoch-seconds" | "rfc3339-micro-offset";
  /** Ids the fake mints for conversations and messages; read only by `createFakeApp` (app.ts). */
  readonly ids: "uuid-v4" | "uuid-v7";
  /** An exchange also stores a tool note between the user and assistant messages; read by `appendAnswered` (commit/commit.ts). */
  readonly exchangeNote: boolean;
  /** Answers end with a sentence of multi-byte characters; read by `styledAnswer` (answers/style.ts). */
  readonly multibyteAnswers: boolean;
  /** Answers cite the documents they used; read by `styledAnswer`. */
  readonly citations: boolean;
  /** Every JSON body and event payload carries fields the spec does not name; read by `withExtraFields` and `withExtraFieldsText` (http/extra-fields.ts), and by `sendResult` (routes/create-response.ts), which then writes the result through them. */
  readonly extraFields: boolean;
  /** A plain create thinks this long before it answers; read by `AS_JSON.fresh` (routes/create-response.ts). */
  readonly createLatencyMs: number;
  /** A fresh stream thinks this long after response.created, before its first delta; read by `delaysOf` (routes/stream-response.ts). */
  readonly streamLatencyMs: number;
  /** LLM-like pacing of creates (null: none); read only by `baseFaultPlan` (faults/fault-plan.ts). */
  readonly pacing: Pacing | null;
  /** A token bucket per API key in front of every /v1 request (null: none); read only by `rateLimiterFor` (deployment/rate-limit.ts). */
  readonly rateLimit: RateLimit | null;
  /** Every Nth create of an API key is answered 503 before anything is done (0: never); read only by `overloadFor` (deployment/overload.ts). */
  readonly overloadEvery: number;
  /** An exchange reaches the listing this long after it was stored (0: at once); read only by `listedCount` (deployment/listing-lag.ts) and `deleteConversation` (routes/delete-conversation.ts), whose delete reaches the listing as late. */
  readonly listingLagMs: number;
  /** Which Idempotency-Keys a create takes ("any": up to 255 characters; "short-token": up to 64 letters, digits, '-' and '_'); read only by `checkExchangeHeaders` (exchange/prepare.ts), which hands it to the key's reader. */
  readonly idempotencyKeys: "any" | "short-token";
  /** Path prefix before /v1 ("": none); read only by `basePathOption` (options.ts), where the option of the same name can replace it. */
  readonly basePath: string;
  readonly broken: Breakage;
}

export const NOTHING_BROKEN: Breakage = Object.freeze({
  authSkippedOn: null,
  createIdNotUuid: false,
  continueStartsNew: false,
  validationConsumesKey: false,
  overloadAfterCommit: false,
  continuationsNeverListed: false,
  messageOptional: false,
  metadataRejected: false,
  replayAltersAnswer: false,
  replayAppends: false,
  conflict: "409",
  inFlightReservation: true,
  streamIdempotency: true,
  streamContentType: "text/event-stream; charset=utf-8",
  createdTypeMismatch: false,
  deltaEventLine: true,
  deltaField: "delta",
  completedTextField: "output_text",
  deltaBeforeCreated: false,
  completedEvents: 1,
  eventsAfterError: false,
  deltasTrimmed: false,
  streamStored: true,
  answerLostWhenClientLeaves: false,
  streamBuffered: false,
  streamValidationAsEvents: false,
  listingOtherId: false,
  pageZeroServed: false,
  pageZeroAsFirst: false,
  pageOffsetOffByOne: false,
  hasMoreAtExactEnd: false,
  totalCountsScope: false,
  deleteRemoves: true,
  deletedConversations: "gone",
  deleteNotFoundCode: "conversation_not_found",
  agentIgnoredOn: Object.freeze([]),
  channelIgnoredOn: Object.freeze([]),
  droppedOnConflictOn: null,
  inFlightPerOperation: false,
  exchangeWritesBack: false,
  replayAnswersLatestTurn: false,
  replayRestoresDeleted: false,
  pageAloneDefaultSize: null,
  streamFreezesUpdatedAt: false,
  idempotencyReplicas: 1,
  inFlightLoserFails: false,
  fingerprintSkips: null,
  keyCollation: null,
  messageColumn: null,
  sameTextMergedOn: null,
  externalReferenceReopens: false,
  droppedStreamKey: null,
  emptyMetadataRefused: false,
  streamNullReferenceRefused: false,
  streamAuthByConversation: false,
  pageSizeCap: null,
} satisfies Breakage);

export const DEFAULT_BEHAVIOR: Behavior = Object.freeze({
  successStatus: Object.freeze({ create: 200, stream: 200, list: 200, delete: 204 }),
  pageSize: Object.freeze({ default: 50, max: 100 }),
  oversizePageSize: "reject",
  sseLineEnding: "\n",
  sseHeartbeats: false,
  sseEventIds: false,
  sseSplitWrites: false,
  deltaCount: Object.freeze({ min: 3, max: 8 }),
  errorFormat: "nested",
  deleteBody: "none",
  timestamps: "rfc3339",
  ids: "uuid-v4",
  exchangeNote: false,
  multibyteAnswers: false,
  citations: true,
  extraFields: false,
  createLatencyMs: 0,
  streamLatencyMs: 0,
  pacing: null,
  rateLimit: null,
  overloadEvery: 0,
  listingLagMs: 0,
  idempotencyKeys: "any",
  basePath: "",
  broken: NOTHING_BROKEN,
} satisfies Behavior);

/**
 * A change to the default behavior: top-level fields replaced, and the grouped ones
 * (`successStatus`, `pageSize`, `deltaCount`, `broken`) replaced field by field.
 */
export interface BehaviorPatch extends Partial<Omit<Behavior, "successStatus" | "pageSize" | "deltaCount" | "broken">> {
  readonly successStatus?: Partial<Behavior["successStatus"]>;
  readonly pageSize?: Partial<Behavior["pageSize"]>;
  readonly deltaCount?: Partial<Behavior["deltaCount"]>;
  readonly broken?: Partial<Breakage>;
}

const GROUPS = ["successStatus", "pageSize", "deltaCount", "broken"] as const;

/** The paths a patch sets ("sseLineEnding", "successStatus.create"), to find patches that disagree. */
export function patchedPaths(patch: BehaviorPatch): string[] {
  const paths: string[] = [];
  for (const [key, value] of Object.entries(patch)) {
    if ((GROUPS as readonly string[]).includes(key) && typeof value === "object" && value !== null) {
      for (const inner of Object.keys(value)) paths.push(`${key}.${inner}`);
    } else {
      paths.push(key);
    }
  }
  return paths;
}

/** `base` with the patches applied in order; the result is frozen like the default. */
export function patchBehavior(base: Behavior, patches: readonly BehaviorPatch[]): Behavior {
  let next: Behavior = base;
  for (const patch of patches) {
    next = {
      ...next,
      ...patch,
      successStatus: { ...next.successStatus, ...patch.successStatus },
      pageSize: { ...next.pageSize, ...patch.pageSize },
      deltaCount: { ...next.deltaCount, ...patch.deltaCount },
      broken: { ...next.broken, ...patch.broken },
    };
  }
  return Object.freeze(next);
}
