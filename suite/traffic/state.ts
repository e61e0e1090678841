/**
 * What the traffic judge remembers between exchanges: the conversations it saw made and
 * deleted, and the outcome of each Idempotency-Key it saw accepted; and whether the service's
 * listings were seen to lag behind its writes. Bounded: past the caps the oldest entries go
 * (a judgement that needed them is then simply not made).
 */
import type { Operation } from "./classify.ts";
import type { TrafficViolation } from "./recorder.ts";

export interface KnownConversation {
  readonly agent: string;
  /** The key it was made with (its scope, as far as traffic shows). */
  readonly token: string | undefined;
  /** When a delete of it by its owner finished, epoch ms; undefined while it exists. */
  deletedAt: number | undefined;
  /** Each exchange stored in it (an accepted first answer), the first ones seen. */
  readonly stored: StoredExchange[];
  /** Its latest listings that were answered with a page (2xx). */
  readonly listings: SeenListing[];
  /** Requests that still saw it within --settle-ms of its delete, held until a later one sees it gone. */
  held: TrafficViolation[];
}

export interface StoredExchange {
  readonly startedAt: number;
  readonly finishedAt: number;
  readonly stream: boolean;
}

export interface SeenListing {
  readonly startedAt: number;
  readonly finishedAt: number;
  readonly total: number;
}

/**
 * Where a request stands to its conversation's delete: before it finished (or no delete),
 * within --settle-ms of it, or after.
 */
export type DeletePhase = "none" | "settling" | "settled";

export interface KeyOutcome {
  readonly operation: Extract<Operation, "create" | "stream">;
  /** Canonical JSON of the body, as the spec compares payloads. */
  readonly payload: string;
  /** The body as sent. */
  readonly raw: string | undefined;
  /** When the accepted request finished, epoch ms: only later requests are judged against it. */
  readonly finishedAt: number;
  /** What a replay must give again. */
  readonly result: { conversation_id: string; text: string; citations: unknown };
}

/** A create refused with a 4xx under a key no accepted request holds. */
export interface KeyRefusal {
  /** When the refusal finished, epoch ms. */
  readonly finishedAt: number;
  /** Canonical JSON of the refused body. */
  readonly payload: string;
  readonly status: number;
  /** What a later 409 for the key breaks: RESP-4 (no string message) or IDEM-3 (refused for another reason). */
  readonly requirement: "RESP-4" | "IDEM-3";
}

const MAX_ENTRIES = 100_000;
/** Enough to tell a listing that lags, or one that misses an exchange; a lower bound past it. */
const MAX_STORED = 100;
/** Earlier listings a new one is compared with. */
const MAX_LISTINGS = 10;

function bounded<K, V>(map: Map<K, V>, key: K, value: V): void {
  map.delete(key);
  map.set(key, value);
  if (map.size > MAX_ENTRIES) {
    const oldest = map.keys().next();
    if (!oldest.done) map.delete(oldest.value);
  }
}

export class TrafficState {
  /**
   * True once a listing answered as if an exchange that had finished before it began were not
   * stored yet: this service's listings lag, so its deletes may too.
   */
  listingLagSeen = false;
  private readonly conversations = new Map<string, KnownConversation>();
  private readonly keys = new Map<string, KeyOutcome>();
  /** Keys of creates refused with a 4xx, and the last refusal of each. */
  private readonly refusals = new Map<string, KeyRefusal>();

  conversation(id: string | undefined): KnownConversation | undefined {
    return id === undefined ? undefined : this.conversations.get(id.toLowerCase());
  }

  constructor(
    /** How long a service whose listings lag may take to show a delete (the suite's --settle-ms). */
    readonly settleMs: number,
  ) {}

  rememberConversation(id: string, owner: Omit<KnownConversation, "deletedAt" | "stored" | "listings" | "held">): KnownConversation {
    const known = this.conversations.get(id.toLowerCase());
    if (known !== undefined) return known;
    const created: KnownConversation = { ...owner, deletedAt: undefined, stored: [], listings: [], held: [] };
    bounded(this.conversations, id.toLowerCase(), created);
    return created;
  }

  /** An exchange was stored in `known`. */
  rememberStored(known: KnownConversation, exchange: StoredExchange): void {
    if (known.stored.length < MAX_STORED) known.stored.push(exchange);
  }

  /** How many exchanges, at least, a listing that began at `startedAt` must show. */
  storedBefore(known: KnownConversation, startedAt: number): number {
    return known.stored.filter((exchange) => exchange.finishedAt <= startedAt).length;
  }

  rememberListing(known: KnownConversation, listing: SeenListing): void {
    known.listings.push(listing);
    if (known.listings.length > MAX_LISTINGS) known.listings.shift();
  }

  /**
   * Exchanges a listing that began at `startedAt` must show beyond what the earlier listing
   * `since` showed: those that started after it was answered and were answered --settle-ms
   * before `startedAt`. Undefined when an exchange was under way while `since` was read (it may
   * or may not be in it), so the comparison would prove nothing.
   */
  settledSince(known: KnownConversation, since: SeenListing, startedAt: number): StoredExchange[] | undefined {
    const overlapping = known.stored.some((e) => e.startedAt < since.finishedAt && e.finishedAt > since.startedAt);
    if (overlapping) return undefined;
    return known.stored.filter((e) => e.startedAt >= since.finishedAt && e.finishedAt + this.settleMs <= startedAt);
  }

  deletePhase(known: KnownConversation, startedAt: number): DeletePhase {
    if (known.deletedAt === undefined || startedAt < known.deletedAt) return "none";
    return startedAt < known.deletedAt + this.settleMs ? "settling" : "settled";
  }

  /**
   * A request saw `known` deleted: what earlier ones saw of it within the window was the
   * service's lag, not a delete that failed, and this service's reads lag.
   */
  deleteShown(known: KnownConversation): void {
    if (known.held.length === 0) return;
    known.held = [];
    this.listingLagSeen = true;
  }

  /** Every held violation no later request took back; they are the traffic's now. */
  takeHeld(): TrafficViolation[] {
    const held: TrafficViolation[] = [];
    for (const known of this.conversations.values()) {
      held.push(...known.held);
      known.held = [];
    }
    return held;
  }

  keyOutcome(token: string, agent: string, key: string): KeyOutcome | undefined {
    return this.keys.get(`${token}\u0000${agent}\u0000${key}`);
  }

  refusal(token: string, agent: string, key: string): KeyRefusal | undefined {
    return this.refusals.get(`${token}\u0000${agent}\u0000${key}`);
  }

  rememberRefusal(token: string, agent: string, key: string, refusal: KeyRefusal): void {
    bounded(this.refusals, `${token}\u0000${agent}\u0000${key}`, refusal);
  }

  rememberKey(token: string, agent: string, key: string, outcome: KeyOutcome): void {
    bounded(this.keys, `${token}\u0000${agent}\u0000${key}`, outcome);
  }
}
