/**
 * Where a mutant bends the checks of a create (`prepareExchange`): one object per behavior,
 * built here from its switches, which `prepareExchange` never reads itself. CONFORMING,
 * the reference fake's, holds no hook, so its path is the spec's on both endpoints; a mutant
 * that breaks one endpoint only says so in its own hook.
 */
import type { FakeResponseRequest } from "../../schemas/index.ts";
import type { Caller } from "../access/scope.ts";
import type { Behavior } from "../behavior/behavior.ts";
import type { AppContext } from "../context.ts";
import { ApiError } from "../http/api-error.ts";
import { droppedStreamLookup } from "../idempotency/dropped-streams.ts";
import { canonicalJson } from "../../schemas/canonical-json.ts";
import { fingerprintOfCanonical } from "../idempotency/fingerprint.ts";
import type {
  IdempotencyLookup,
  IdempotencyScope,
  ReservationVisibility,
  StoredOutcome,
} from "../idempotency/store.ts";
import { reopenedByReference } from "./external-reference.ts";
import { collidingOutcome } from "./key-collation.ts";
import { looseReplay, rememberLooseFingerprint } from "./loose-fingerprint.ts";
import {
  appendAgain,
  latestTurnOutcome,
  redoWriteOnOtherReplica,
  regeneratedOutcome,
  restoreFromRecord,
} from "./replay-mutants.ts";

/** A create as its idempotency checks know it, once its body passed validation. */
export interface KeyedCreate {
  readonly caller: Caller;
  readonly operation: "create" | "stream";
  readonly idempotencyKey: string;
  readonly records: IdempotencyScope;
  readonly fingerprint: string;
  readonly body: unknown;
  readonly request: FakeResponseRequest;
}

/** Each hook replaces one step of `prepareExchange`; an absent hook is the conforming step. */
export interface PrepareHooks {
  /** Validation refused the body and its 400 follows (conforming: the key stays unused). */
  readonly bodyRefused?: (ctx: AppContext, caller: Caller, idempotencyKey: string, body: unknown) => void;
  /** How an operation holds its key (conforming: "now", at once, against both endpoints). */
  readonly visibility?: (operation: "create" | "stream") => ReservationVisibility;
  /** What the key's lookup finds (conforming: what the store found). */
  readonly lookup?: (create: KeyedCreate, found: IdempotencyLookup) => IdempotencyLookup;
  /** The refusal of a key still running (conforming: 409 idempotency_key_in_use). */
  readonly inFlight?: () => ApiError;
  /** A key reused with another payload: an outcome replayed, or another refusal (conforming: 409 idempotency_key_reused). */
  readonly conflict?: (records: IdempotencyScope, idempotencyKey: string) => StoredOutcome | ApiError | undefined;
  /** A replay: what it changes, and what it answers (conforming: the stored outcome, nothing changed). */
  readonly replay?: (ctx: AppContext, create: KeyedCreate, outcome: StoredOutcome) => StoredOutcome;
  /** The conversation a fresh exchange continues (conforming: the body's conversation_id). */
  readonly continued?: (ctx: AppContext, caller: Caller, request: FakeResponseRequest) => string | undefined;
  /** A key was just reserved for a fresh exchange (conforming: nothing more). */
  readonly reserved?: (ctx: AppContext, create: KeyedCreate) => void;
}

export const CONFORMING: PrepareHooks = Object.freeze({});

/** The key as the replicas mutant remembers it, per replica. */
const appliedKeyOf = ({ caller, idempotencyKey }: Pick<KeyedCreate, "caller" | "idempotencyKey">): string =>
  `${caller.grant.token} ${caller.agentId} ${idempotencyKey}`;

/**
 * validation-consumes-key: a refused body still holds its key under its own fingerprint, as if
 * it were running: the same body again is 409 idempotency_key_in_use, a valid one 409 idempotency_key_reused.
 */
function holdKeyOfRefusedBody(ctx: AppContext, caller: Caller, idempotencyKey: string, body: unknown): void {
  const records = ctx.idempotency.scope(caller.grant.token, caller.agentId);
  const fingerprint = fingerprintOfCanonical(canonicalJson(body));
  if (records.lookup(idempotencyKey, fingerprint).kind === "absent") records.reserve(idempotencyKey, fingerprint);
}

/** The stream ignoring keys, keys recorded only on completion, or in-flight keys held per endpoint. */
function visibilityOf(broken: Behavior["broken"], operation: "create" | "stream"): ReservationVisibility {
  if (operation === "stream" && !broken.streamIdempotency) return "never";
  if (!broken.inFlightReservation) return "on-completion";
  return broken.inFlightPerOperation ? "per-operation" : "now";
}

const lockFailure = (): ApiError =>
  new ApiError(
    500,
    "internal_error",
    "the idempotency record of this key could not be locked: it is held by another request",
  );

/** What the refusal of a key reused with another payload says: the conforming 409, or a mutant's 422. */
export const KEY_REUSED_MESSAGE =
  "this Idempotency-Key was already used with a different request body; use a new key for a new operation";

function conflictOf(conflict: Behavior["broken"]["conflict"]): PrepareHooks["conflict"] {
  if (conflict === "422") return () => new ApiError(422, "idempotency_key_reused", KEY_REUSED_MESSAGE);
  if (conflict === "replay") return (records, idempotencyKey) => records.outcomeOf(idempotencyKey);
  return undefined;
}

/**
 * What a replay does under the replay mutants (exchange/replay-mutants.ts): a deleted
 * conversation restored from the record on both endpoints; on the plain one only, the
 * exchange written again (by another replica, or by every replay), and another answer given.
 */
function replayOf(
  broken: Behavior["broken"],
  ctx: AppContext,
  create: KeyedCreate,
  outcome: StoredOutcome,
): StoredOutcome {
  const { caller, request, operation } = create;
  if (broken.replayRestoresDeleted) restoreFromRecord(ctx, caller, request, outcome);
  if (operation !== "create") return outcome;
  redoWriteOnOtherReplica(ctx, appliedKeyOf(create), request, outcome);
  if (broken.replayAppends) appendAgain(ctx, request, outcome);
  if (broken.replayAnswersLatestTurn) return latestTurnOutcome(ctx, outcome);
  return broken.replayAltersAnswer ? regeneratedOutcome(outcome) : outcome;
}

const built = new WeakMap<Behavior, PrepareHooks>();

/** The hooks of this behavior, built on first use (a behavior is frozen, so once per app). */
export function prepareHooksOf(behavior: Behavior): PrepareHooks {
  let hooks = built.get(behavior);
  if (hooks === undefined) built.set(behavior, (hooks = hooksFor(behavior)));
  return hooks;
}

/** CONFORMING when none of the switches below is on. */
function hooksFor(behavior: Behavior): PrepareHooks {
  const { broken } = behavior;
  const replicated = broken.idempotencyReplicas > 1;
  const hooks: { -readonly [K in keyof PrepareHooks]: PrepareHooks[K] } = {};
  if (broken.validationConsumesKey) hooks.bodyRefused = holdKeyOfRefusedBody;
  if (!broken.streamIdempotency || !broken.inFlightReservation || broken.inFlightPerOperation) {
    hooks.visibility = (operation) => visibilityOf(broken, operation);
  }
  if (broken.keyCollation !== null || broken.fingerprintSkips !== null || broken.droppedStreamKey !== null) {
    hooks.lookup = (create, found) => {
      const { records, idempotencyKey, operation } = create;
      if (found.kind === "absent") {
        const colliding = collidingOutcome(
          broken,
          records,
          idempotencyKey,
          create.fingerprint,
          operation,
          create.request,
        );
        return colliding === undefined ? found : { kind: "replay", outcome: colliding };
      }
      return droppedStreamLookup(
        behavior,
        records,
        idempotencyKey,
        operation,
        looseReplay(broken, records, idempotencyKey, create.body, operation, found),
      );
    };
  }
  if (broken.inFlightLoserFails) hooks.inFlight = lockFailure;
  const conflict = conflictOf(broken.conflict);
  if (conflict !== undefined) hooks.conflict = conflict;
  if (
    broken.replayRestoresDeleted ||
    broken.replayAnswersLatestTurn ||
    broken.replayAppends ||
    broken.replayAltersAnswer ||
    replicated
  ) {
    hooks.replay = (ctx, create, outcome) => replayOf(broken, ctx, create, outcome);
  }
  if (broken.continueStartsNew) hooks.continued = () => undefined;
  else if (broken.externalReferenceReopens)
    hooks.continued = (ctx, caller, request) => request.conversation_id ?? reopenedByReference(ctx, caller, request);
  if (broken.fingerprintSkips !== null || replicated) {
    hooks.reserved = (ctx, create) => {
      rememberLooseFingerprint(broken, create.records, create.idempotencyKey, create.body);
      // Replicas: the one serving this connection remembers that it wrote this key's exchange.
      ctx.appliedKeys?.add(appliedKeyOf(create));
    };
  }
  return Object.keys(hooks).length === 0 ? CONFORMING : Object.freeze(hooks);
}
