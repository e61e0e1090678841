/**
 * `prepareExchange`, stage 7 of both creates, in the README's order: the headers, the body and its
 * validation, an injected status or overload, then the idempotency record and the conversation; a
 * replay or a fresh exchange holding its key comes out. Mutants act only through exchange/hooks.ts.
 */
import type { FakeResponseRequest } from "../../schemas/index.ts";
import type { AppContext, FakeRequest } from "../context.ts";
import { overloaded } from "../deployment/overload.ts";
import { injectedStatusError, type FaultPlan } from "../faults/fault-plan.ts";
import { headerFaults, ruleFaults } from "../faults/request-faults.ts";
import { ApiError } from "../http/api-error.ts";
import { readJsonBody } from "../http/read-body.ts";
import { canonicalJson } from "../../schemas/canonical-json.ts";
import { fingerprintOfCanonical } from "../idempotency/fingerprint.ts";
import { readIdempotencyKey } from "../idempotency/key-header.ts";
import { ABSENT, type Reservation, type StoredOutcome } from "../idempotency/store.ts";
import { conversationNotFound, exchangeCaller, findInScope, reviveDeleted, type Caller } from "../access/scope.ts";
import { KEY_REUSED_MESSAGE, prepareHooksOf, type KeyedCreate, type PrepareHooks } from "./hooks.ts";
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
  | {
      readonly kind: "replay";
      readonly outcome: StoredOutcome;
      readonly request: FakeResponseRequest;
      readonly faults: FaultPlan;
    }
  | { readonly kind: "fresh"; readonly exchange: FreshExchange; readonly faults: FaultPlan };

/** The answer to a request whose key is still running. */
function keyInUse(): ApiError {
  return new ApiError(
    409,
    "idempotency_key_in_use",
    "a request with this Idempotency-Key is still running; retry after it finishes to get its result",
    { "Retry-After": "1" },
  );
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
  return { caller, faults, idempotencyKey: readIdempotencyKey(req, ctx.behavior.idempotencyKeys) };
}

/** The body checked against the request schema; a hook may act on a refused one before its 400 goes. */
function validated(
  ctx: AppContext,
  { bodyRefused }: PrepareHooks,
  { caller, idempotencyKey }: ExchangeHeaders,
  body: unknown,
  operation: "create" | "stream",
): FakeResponseRequest {
  if (bodyRefused === undefined) return validateResponseRequest(body, ctx.behavior, operation);
  try {
    return validateResponseRequest(body, ctx.behavior, operation);
  } catch (error) {
    bodyRefused(ctx, caller, idempotencyKey, body);
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
 * reserved before any other request can look at it. (The lifecycle awaits the body itself
 * rather than through an async function here: one level of promises less per create.) A
 * mutant changes a step only through its hooks (exchange/hooks.ts).
 */
export function prepareExchange(
  ctx: AppContext,
  req: FakeRequest,
  operation: "create" | "stream",
  headers: ExchangeHeaders,
  body: unknown,
): PreparedExchange {
  const { caller, idempotencyKey } = headers;
  const hooks = prepareHooksOf(ctx.behavior);
  const request = validated(ctx, hooks, headers, body, operation);
  const faults =
    headers.faults ??
    ruleFaults(ctx, req, { agent: caller.agentId, operation, message: request.message }, ctx.baseFaults);
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
  const visible = hooks.visibility?.(operation) ?? "now";
  const create: KeyedCreate = { caller, operation, idempotencyKey, records, fingerprint, body, request };
  let found = visible === "never" ? ABSENT : records.lookup(idempotencyKey, fingerprint, operation);
  if (hooks.lookup !== undefined && visible !== "never") found = hooks.lookup(create, found);
  if (found.kind === "replay") {
    const outcome = hooks.replay === undefined ? found.outcome : hooks.replay(ctx, create, found.outcome);
    return { kind: "replay", outcome, request, faults };
  }
  if (found.kind === "conflict") {
    const instead = hooks.conflict?.(records, idempotencyKey);
    if (instead instanceof ApiError) throw instead;
    if (instead !== undefined) return { kind: "replay", outcome: instead, request, faults };
    throw new ApiError(409, "idempotency_key_reused", KEY_REUSED_MESSAGE);
  }
  if (found.kind === "in_flight") throw hooks.inFlight?.() ?? keyInUse();
  const conversationId =
    hooks.continued === undefined ? (request.conversation_id ?? undefined) : hooks.continued(ctx, caller, request);
  const continuing = operation === "stream" ? "continue-stream" : "continue";
  if (
    conversationId !== undefined &&
    !(findInScope(ctx, conversationId, caller, continuing) ?? reviveDeleted(ctx, conversationId, caller))
  ) {
    throw conversationNotFound(conversationId);
  }
  const reservation = records.reserve(idempotencyKey, fingerprint, visible, operation);
  hooks.reserved?.(ctx, create);
  return {
    kind: "fresh",
    exchange: { caller, operation, request, reservation, conversationId, refuseAfterCommit },
    faults,
  };
}
