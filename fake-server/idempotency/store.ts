import type { FakeErrorCode } from "../../schemas/index.ts";
import type { Clock } from "../clock.ts";

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
  readonly key: string;
  readonly record: IdempotencyRecord;
  /** When the record becomes visible to other requests (see `reserve`). */
  readonly visible: ReservationVisibility;
}

/**
 * "now": the key is held while the operation runs (the conforming choice). The other two
 * exist for mutants only: "on-completion" records the key when the operation completes,
 * so simultaneous requests all run; "never" records nothing.
 */
export type ReservationVisibility = "now" | "on-completion" | "never";

export type IdempotencyLookup =
  | { readonly kind: "absent" }
  | { readonly kind: "replay"; readonly outcome: StoredOutcome }
  | { readonly kind: "in_flight" }
  | { readonly kind: "conflict" };

/** Records keyed by (API key, agent, Idempotency-Key). Every method is synchronous. */
export class IdempotencyStore {
  private readonly records = new Map<string, IdempotencyRecord>();

  constructor(
    private readonly clock: Clock,
    private readonly ttlMs: number,
  ) {}

  static scopeKey(token: string, agentId: string, idempotencyKey: string): string {
    return JSON.stringify([token, agentId, idempotencyKey]);
  }

  get size(): number {
    return this.records.size;
  }

  lookup(key: string, fingerprint: string): IdempotencyLookup {
    const record = this.live(key);
    if (!record) return { kind: "absent" };
    if (record.fingerprint !== fingerprint) return { kind: "conflict" };
    return record.outcome ? { kind: "replay", outcome: record.outcome } : { kind: "in_flight" };
  }

  /** The outcome stored under a key whatever the payload (a mutant replays it for a different payload). */
  outcomeOf(key: string): StoredOutcome | undefined {
    return this.live(key)?.outcome;
  }

  /** Holds the key for an operation about to run. Call only right after `lookup` said "absent". */
  reserve(key: string, fingerprint: string, visible: ReservationVisibility = "now"): Reservation {
    const record: IdempotencyRecord = { fingerprint, outcome: undefined, expiresAt: Number.POSITIVE_INFINITY };
    if (visible === "now") {
      // A lookup said "absent" just before; only a live record here would be a wiring bug.
      const existing = this.records.get(key);
      if (existing && existing.expiresAt > this.clock.now()) throw new Error("idempotency key reserved twice");
      this.records.set(key, record);
    }
    return { key, record, visible };
  }

  /** Stores the outcome; a no-op if the store was reset while the operation ran. */
  complete(reservation: Reservation, outcome: StoredOutcome): void {
    if (reservation.visible === "never") return;
    if (reservation.visible === "on-completion") this.records.set(reservation.key, reservation.record);
    if (this.records.get(reservation.key) !== reservation.record) return;
    reservation.record.outcome = outcome;
    reservation.record.expiresAt = this.clock.now() + this.ttlMs;
  }

  /** Frees the key of an operation that did not take place, so a retry can run it. A completed record stays. */
  release(reservation: Reservation): void {
    if (reservation.record.outcome === undefined && this.records.get(reservation.key) === reservation.record) {
      this.records.delete(reservation.key);
    }
  }

  /** Drops every expired record; returns how many. */
  sweep(): number {
    const now = this.clock.now();
    let dropped = 0;
    for (const [key, record] of this.records) {
      if (record.expiresAt <= now) {
        this.records.delete(key);
        dropped++;
      }
    }
    return dropped;
  }

  clear(): void {
    this.records.clear();
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
