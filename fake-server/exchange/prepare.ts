import type { FakeResponseRequest } from "../../schemas/index.ts";
import type { Behavior } from "../behavior/behavior.ts";
import type { AppContext, FakeRequest } from "../context.ts";
import { overloaded } from "../deployment/overload.ts";
import { injectedStatusError, type FaultPlan } from "../faults/fault-plan.ts";
import { headerFaults, ruleFaults } from "../faults/request-faults.ts";
import { ApiError } from "../http/api-error.ts";
import { readJsonBody } from "../http/read-body.ts";
import { canonicalJson, fingerprintOfCanonical } from "../idempotency/fingerprint.ts";
import { readIdempotencyKey } from "../idempotency/key-header.ts";
import { droppedStreamLookup } from "../idempotency/dropped-streams.ts";
import { ABSENT, type IdempotencyLookup, type IdempotencyScope, type Reservation, type ReservationVisibility, type StoredOutcome } from "../idempotency/store.ts";
import { conversationNotFound, exchangeCaller, findInScope, reviveDeleted, type Caller } from "../access/scope.ts";
import { reopenedByReference } from "./external-reference.ts";
import { collidingOutcome } from "./key-collation.ts";
import { looseReplay, rememberLooseFingerprint } from "./loose-fingerprint.ts";
import { latestTurnOutcome, redoWriteOnOtherReplica, restoreFromRecord } from "./replay-mutants.ts";
import { validateResponseRequest } from "./validate-request.ts";

/** A create (plain or stream) that passed every check and holds its Idempotency-Key. */
export interface FreshExchange {
  readonly caller: Caller;
  /** The endpoint it came in on. */
  readonly operation: "create" | "stream";
  readonly request: FakeResponseRequest;
  readonly reservation: Reservation;
  /** The conversation to continue, or undefined to start a new one. */
  readonly conversationId: string | undefined;
  /** Mutant only: once stored, the exchange forgets its key and is answered 503 (`refusedAfterCommit`). */
  readonly refuseAfterCommit: boolean;
}

export type PreparedExchange =
  | { readonly kind: "replay"; readonly outcome: StoredOutcome; readonly request: FakeResponseRequest; readonly faults: FaultPlan }
  | { readonly kind: "fresh"; readonly exchange: FreshExchange; readonly faults: FaultPlan };

/** How this behavior records keys for an operation: held while running, unless a mutant says otherwise. */
function visibilityOf(broken: Behavior["broken"], operation: "create" | "stream"): ReservationVisibility {
  if (operation === "stream" && !broken.streamIdempotency) return "never";
  if (!broken.inFlightReservation) return "on-completion";
  return broken.inFlightPerOperation ? "per-operation" : "now";
}

/** The answer to a request whose key is still running: 409, or (a mutant) the 500 of a failed lock. */
function inFlightRefusal(broken: Behavior["broken"]): ApiError {
  if (broken.inFlightLoserFails) {
    return new ApiError(500, "internal_error", "the idempotency record of this key could not be locked: it is held by another request");
  }
  return new ApiError(
    409,
    "idempotency_key_in_use",
    "a request with this Idempotency-Key is still running; retry after it finishes to get its result",
    { "Retry-After": "1" },
  );
}

/** A replay of a finished key; three mutants change what it does (exchange/replay-mutants.ts). */
function replayOf(
  ctx: AppContext,
  caller: Caller,
  request: FakeResponseRequest,
  outcome: StoredOutcome,
  faults: FaultPlan,
  operation: "create" | "stream",
  appliedKey: string,
): PreparedExchange {
  const { broken } = ctx.behavior;
  if (broken.replayRestoresDeleted) restoreFromRecord(ctx, caller, request, outcome);
  if (operation === "create") redoWriteOnOtherReplica(ctx, appliedKey, request, outcome);
  const replayed = broken.replayAnswersLatestTurn && operation === "create" ? latestTurnOutcome(ctx, outcome) : outcome;
  return { kind: "replay", outcome: replayed, request, faults };
}

/** What the idempotency lookup of one request knows. */
interface RecordQuery {
  readonly key: string;
  readonly fingerprint: string;
  readonly visible: ReservationVisibility;
  readonly operation: "create" | "stream";
  readonly body: unknown;
  readonly request: FakeResponseRequest;
}

/**
 * The record a request finds under its key. Mutants only look further: a key matched looser
 * than it was sent, a fingerprint that skips a field, a dropped stream's key mishandled.
 */
function lookupRecord(behavior: Behavior, records: IdempotencyScope, query: RecordQuery): IdempotencyLookup {
  const { broken } = behavior;
  const { key, fingerprint, operation } = query;
  if (query.visible === "never") return ABSENT;
  const found = records.lookup(key, fingerprint, operation);
  if (found.kind === "absent") {
    const colliding = collidingOutcome(broken, records, key, fingerprint, operation, query.request);
    return colliding === undefined ? found : { kind: "replay", outcome: colliding };
  }
  return droppedStreamLookup(behavior, records, key, operation, looseReplay(broken, records, key, query.body, operation, found));
}

/** What the checks before the body found: who calls, the faults its header asked for, and the key. */
export interface ExchangeHeaders {
  readonly caller: Caller;
  /** From X-Fake-Fault; undefined without the header (a fault rule may then apply, once the message is known). */
  readonly faults: FaultPlan | undefined;
  readonly idempotencyKey: string;
}

/**
 * The checks shared by both create operations that come before the body is read, in
 * order: agent, X-Fake-Fault, Idempotency-Key.
 */
export function checkExchangeHeaders(ctx: AppContext, req: FakeRequest): ExchangeHeaders {
  const caller = exchangeCaller(req);
  const faults = headerFaults(ctx, req, ctx.baseFaults);
  return { caller, faults, idempotencyKey: readIdempotencyKey(req) };
}

/**
 * Mutant only: the body validated as usual, but a refused one still holds its key under the
 * refused body's fingerprint, as if it were running: the same body again is 409
 * idempotency_key_in_use, a valid one 409 idempotency_key_reused.
 */
function validatedHoldingKey(ctx: AppContext, { caller, idempotencyKey }: ExchangeHeaders, body: unknown, operation: "create" | "stream"): FakeResponseRequest {
  try {
    return validateResponseRequest(body, ctx.behavior, operation);
  } catch (error) {
    const records = ctx.idempotency.scope(caller.grant.token, caller.agentId);
    const fingerprint = fingerprintOfCanonical(canonicalJson(body));
    if (records.lookup(idempotencyKey, fingerprint).kind === "absent") records.reserve(idempotencyKey, fingerprint);
    throw error;
  }
}

/** The request body, read once `checkExchangeHeaders` passed: Content-Type, size and JSON checks. */
export function readExchangeBody(ctx: AppContext, req: FakeRequest): Promise<unknown> {
  return readJsonBody(req, ctx.options.maxBodyBytes);
}

/**
 * The checks after the body is read, in order: schema, injected status, overload, then the
 * idempotency record and the conversation. It runs without awaiting, so the key is
 * reserved before any other request can look at it. (The routes await the body themselves
 * rather than through an async function here: one level of promises less per create.)
 */
export function prepareExchange(
  ctx: AppContext,
  req: FakeRequest,
  operation: "create" | "stream",
  headers: ExchangeHeaders,
  body: unknown,
): PreparedExchange {
  const { caller, idempotencyKey } = headers;
  const { broken } = ctx.behavior;
  const request = broken.validationConsumesKey ? validatedHoldingKey(ctx, headers, body, operation) : validateResponseRequest(body, ctx.behavior, operation);
  const faults = headers.faults ?? ruleFaults(ctx, req, { agent: caller.agentId, operation, message: request.message }, ctx.baseFaults);
  // The canonical text and its digest serve both the observer and the idempotency record.
  const canonical = canonicalJson(body);
  const fingerprint = fingerprintOfCanonical(canonical);
  ctx.clientRules.payloadAccepted(req.observed, body, request, canonical, fingerprint);
  const injected = injectedStatusError(faults);
  if (injected) throw injected;
  // The overloaded variant refuses every Nth create of a key here, before anything is done.
  let refuseAfterCommit = false;
  if (ctx.overload !== undefined && ctx.overload.hit(caller.grant.token)) {
    if (!ctx.overload.afterCommit) throw overloaded();
    refuseAfterCommit = true;
  }

  const records = ctx.idempotency.scope(caller.grant.token, caller.agentId);
  const visible = visibilityOf(broken, operation);
  const found = lookupRecord(ctx.behavior, records, { key: idempotencyKey, fingerprint, visible, operation, body, request });
  const appliedKey = `${caller.grant.token} ${caller.agentId} ${idempotencyKey}`;
  if (found.kind === "replay") return replayOf(ctx, caller, request, found.outcome, faults, operation, appliedKey);
  const conflicting = found.kind === "conflict" && broken.conflict === "replay" ? records.outcomeOf(idempotencyKey) : undefined;
  if (conflicting !== undefined) return { kind: "replay", outcome: conflicting, request, faults };
  if (found.kind === "conflict") {
    throw new ApiError(
      broken.conflict === "422" ? 422 : 409,
      "idempotency_key_reused",
      "this Idempotency-Key was already used with a different request body; use a new key for a new operation",
    );
  }
  if (found.kind === "in_flight") throw inFlightRefusal(broken);
  // Mutants: one ignores conversation_id, one takes external_reference for the conversation's key.
  const conversationId = broken.continueStartsNew ? undefined : (request.conversation_id ?? reopenedByReference(ctx, caller, request));
  const continuing = operation === "stream" ? "continue-stream" : "continue";
  if (conversationId !== undefined && !(findInScope(ctx, conversationId, caller, continuing) ?? reviveDeleted(ctx, conversationId, caller))) {
    throw conversationNotFound(conversationId);
  }
  const reservation = records.reserve(idempotencyKey, fingerprint, visible, operation);
  rememberLooseFingerprint(broken, records, idempotencyKey, body);
  ctx.appliedKeys?.add(appliedKey);
  return { kind: "fresh", exchange: { caller, operation, request, reservation, conversationId, refuseAfterCommit }, faults };
}
