/**
 * A session's idempotency records, per (API key, agent, Idempotency-Key): the key held while its
 * operation runs, then its outcome kept for replays until the TTL ends; the other ways of holding
 * keys exist for mutants. All synchronous, so no two requests see a key half-taken.
 */
import type { FakeErrorCode } from "../../schemas/index.ts";
import type { Clock } from "../runtime/clock.ts";

/**
 * What a finished operation left for its replays: serialised text, plain values, or an
 * answered outcome that writes its text from the shared, frozen answer when read. A record
 * never references a conversation, so deleting one leaves nothing behind here.
 */
export type StoredOutcome =
  /** `body` is the serialised ResponseResult, sent back as is by a plain replay. */
  | { readonly kind: "answered"; readonly status: number; readonly body: string }
  /** A stream that ended in an `error` event after `deltasBeforeError` deltas of `body`'s answer. */
  | {
      readonly kind: "failed";
      readonly body: string;
      readonly deltasBeforeError: number;
      readonly code: FakeErrorCode;
      readonly message: string;
    };

interface IdempotencyRecord {
  readonly fingerprint: string;
  /** undefined while the operation is in flight. */
  outcome: StoredOutcome | undefined;
  expiresAt: number;
}

/** A key held by an operation in flight; completing or releasing it is the holder's duty. */
export interface Reservation {
  readonly scope: IdempotencyScope;
  readonly key: string;
  readonly record: IdempotencyRecord;
  /** When the record becomes visible to other requests (see `reserve`). */
  readonly visible: ReservationVisibility;
  /** "per-operation" only: the in-flight table of the reserving operation, where the record waits for its outcome. */
  readonly lane: Map<string, IdempotencyRecord> | undefined;
  /** The store's generation when reserved: a reset since then makes completing a no-op. */
  readonly generation: number;
}

/**
 * "now": the key is held while the operation runs (the conforming choice). The others
 * exist for mutants only: "on-completion" records the key when the operation completes,
 * so simultaneous requests all run; "per-operation" holds it only against requests of the
 * same operation (each endpoint its own in-flight table) and records it for all on
 * completion; "never" records nothing.
 */
export type ReservationVisibility = "now" | "on-completion" | "per-operation" | "never";

export type IdempotencyLookup =
  | { readonly kind: "absent" }
  | { readonly kind: "replay"; readonly outcome: StoredOutcome }
  | { readonly kind: "in_flight" }
  | { readonly kind: "conflict" };

// The answers that carry nothing are shared rather than built per request.
export const ABSENT: IdempotencyLookup = Object.freeze({ kind: "absent" });
const IN_FLIGHT: IdempotencyLookup = Object.freeze({ kind: "in_flight" });
const CONFLICT: IdempotencyLookup = Object.freeze({ kind: "conflict" });

/**
 * The records of one (API key, agent): keyed by the Idempotency-Key header as sent, so a
 * request builds no composite key to hash. Every method is synchronous.
 */
export class IdempotencyScope {
  readonly records = new Map<string, IdempotencyRecord>();
  /** "per-operation" reservations still running, by operation; made on first use (mutants only). */
  private lanes: Map<string, Map<string, IdempotencyRecord>> | undefined;

  constructor(
    private readonly store: IdempotencyStore,
    private readonly clock: Clock,
  ) {}

  /** `operation` matters only to "per-operation" reservations, which only requests of their own operation see. */
  lookup(key: string, fingerprint: string, operation?: string): IdempotencyLookup {
    const record = this.live(key) ?? (this.lanes === undefined ? undefined : this.laneOf(operation).get(key));
    if (!record) return ABSENT;
    if (record.fingerprint !== fingerprint) return CONFLICT;
    return record.outcome ? { kind: "replay", outcome: record.outcome } : IN_FLIGHT;
  }

  /** The outcome stored under a key whatever the payload (a mutant replays it for a different payload). */
  outcomeOf(key: string): StoredOutcome | undefined {
    return this.live(key)?.outcome;
  }

  /** Holds the key for an operation about to run. Call only right after `lookup` said "absent". */
  reserve(key: string, fingerprint: string, visible: ReservationVisibility = "now", operation?: string): Reservation {
    const record: IdempotencyRecord = { fingerprint, outcome: undefined, expiresAt: Number.POSITIVE_INFINITY };
    // A lookup said "absent" just before, in the same turn of the event loop, and removed
    // any expired record: the key is free.
    if (visible === "now") this.records.set(key, record);
    const lane = visible === "per-operation" ? this.laneOf(operation) : undefined;
    lane?.set(key, record);
    return { scope: this, key, record, visible, lane, generation: this.store.generation };
  }

  private laneOf(operation = ""): Map<string, IdempotencyRecord> {
    this.lanes ??= new Map();
    let lane = this.lanes.get(operation);
    if (lane === undefined) this.lanes.set(operation, (lane = new Map()));
    return lane;
  }

  private live(key: string): IdempotencyRecord | undefined {
    const record = this.records.get(key);
    if (record && record.expiresAt <= this.clock.now()) {
      this.records.delete(key);
      return undefined;
    }
    return record;
  }
}

/** A "per-operation" reservation leaves its operation's in-flight table, once it completes or is released. */
function releaseLane({ lane, key, record }: Reservation): void {
  if (lane !== undefined && lane.get(key) === record) lane.delete(key);
}

/** Records keyed by (API key, agent, Idempotency-Key), one scope per (API key, agent). */
export class IdempotencyStore {
  /** API key, then agent. Both are few, so these maps stay small. */
  private scopes = new Map<string, Map<string, IdempotencyScope>>();
  private currentGeneration = 0;

  constructor(
    private readonly clock: Clock,
    private readonly ttlMs: number,
  ) {}

  /** Bumped by every reset: reservations taken before it no longer complete. */
  get generation(): number {
    return this.currentGeneration;
  }

  /** The records of one API key and agent (created empty on first use). */
  scope(token: string, agentId: string): IdempotencyScope {
    let ofToken = this.scopes.get(token);
    if (ofToken === undefined) this.scopes.set(token, (ofToken = new Map()));
    let scope = ofToken.get(agentId);
    if (scope === undefined) ofToken.set(agentId, (scope = new IdempotencyScope(this, this.clock)));
    return scope;
  }

  get size(): number {
    let size = 0;
    for (const scope of this.allScopes()) size += scope.records.size;
    return size;
  }

  /** Stores the outcome; a no-op if the store was reset while the operation ran. */
  complete(reservation: Reservation, outcome: StoredOutcome): void {
    if (reservation.visible === "never") return;
    releaseLane(reservation);
    if (reservation.generation !== this.currentGeneration) return;
    if (reservation.visible !== "now") reservation.scope.records.set(reservation.key, reservation.record);
    reservation.record.outcome = outcome;
    reservation.record.expiresAt = this.clock.now() + this.ttlMs;
  }

  /** Frees the key of an operation that did not take place, so a retry can run it. A completed record stays. */
  release(reservation: Reservation): void {
    releaseLane(reservation);
    const { records } = reservation.scope;
    if (reservation.record.outcome === undefined && records.get(reservation.key) === reservation.record) {
      records.delete(reservation.key);
    }
  }

  /** Drops every expired record; returns how many. */
  sweep(): number {
    const now = this.clock.now();
    let dropped = 0;
    for (const { records } of this.allScopes()) {
      for (const [key, record] of records) {
        if (record.expiresAt <= now) {
          records.delete(key);
          dropped++;
        }
      }
    }
    return dropped;
  }

  /** Forgets every record; operations still running complete without storing anything. */
  clear(): void {
    this.scopes = new Map();
    this.currentGeneration++;
  }

  private *allScopes(): Generator<IdempotencyScope> {
    for (const ofToken of this.scopes.values()) yield* ofToken.values();
  }
}
