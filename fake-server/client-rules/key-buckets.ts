/**
 * What the client-rule observer remembers per API key: a bounded history of recent requests, with
 * the indexes each rule looks through instead of scanning it, and the violations recorded; at most
 * `maxKeys` keys, the least recently seen evicted first.
 */
import type { RequirementId } from "../../requirements/catalog.ts";
import { redactKey } from "../access/keys.ts";
import type { ObservedRequest } from "./observed-request.ts";

/** A violation as recorded; rendered on read, so its requests show their latest status. */
export interface RecordedViolation {
  /** Global order of recording, for listing several keys oldest first. */
  readonly sequence: number;
  readonly requirement: RequirementId;
  readonly message: string;
  readonly at: number;
  readonly requests: readonly ObservedRequest[];
}

const NONE: readonly ObservedRequest[] = Object.freeze([]);

function isFailedStream(request: ObservedRequest): boolean {
  return request.operation === "stream" && (request.streamEnd === "error" || request.streamEnd === "cut");
}

/**
 * Everything the observer keeps about one API key (or about requests with none). Besides
 * the bounded history, two indexes over it let each rule look only at the requests it can
 * match, so judging a request costs the same whatever the history holds.
 */
export class KeyBucket {
  /**
   * Recent create requests, a ring once full: `next` is the oldest's slot. Overwriting a
   * slot, rather than shifting an array of hundreds, keeps remembering a request constant.
   */
  private readonly ring: ObservedRequest[] = [];
  private next = 0;
  /** Recent violations, oldest first. */
  readonly violations: RecordedViolation[] = [];
  /** Violations per requirement since the bucket was created, evicted entries included. */
  readonly counts = new Map<string, number>();
  /**
   * The requests of `history` per agent, then per Idempotency-Key as sent, oldest first.
   * Keyed by the header and path strings themselves: a key built from both would be a new
   * string to flatten and hash on every request.
   */
  private readonly byOperationKey = new Map<string, Map<string, ObservedRequest[]>>();
  /** How the key is shown: its first 6 characters and "…", or null. */
  readonly shownAs: string | null;
  /** The streams of `history` that started and then failed or were cut, oldest first. */
  private readonly failed: ObservedRequest[] = [];

  constructor(
    /** The full bearer token, kept only to match filters; undefined when none could be read. */
    readonly token: string | undefined,
  ) {
    this.shownAs = token === undefined ? null : redactKey(token);
  }

  /** Recent create requests, oldest first. */
  get history(): ObservedRequest[] {
    return [...this.ring.slice(this.next), ...this.ring.slice(0, this.next)];
  }

  remember(request: ObservedRequest, cap: number): void {
    let evicted: ObservedRequest | undefined;
    if (this.ring.length < cap) {
      this.ring.push(request);
    } else {
      evicted = this.ring[this.next];
      this.ring[this.next] = request;
      this.next = (this.next + 1) % this.ring.length;
    }
    if (evicted !== undefined) this.forget(evicted);
    const key = request.idempotencyKey;
    if (key !== undefined) {
      const agent = request.agent ?? "";
      let ofAgent = this.byOperationKey.get(agent);
      if (ofAgent === undefined) this.byOperationKey.set(agent, (ofAgent = new Map()));
      const same = ofAgent.get(key);
      if (same === undefined) ofAgent.set(key, [request]);
      else same.push(request);
    }
  }

  /**
   * The requests of the history sent under `request`'s agent and Idempotency-Key, oldest
   * first; the request itself among them once it is remembered.
   */
  sameOperationKey(request: ObservedRequest): readonly ObservedRequest[] {
    const key = request.idempotencyKey;
    return (key === undefined ? undefined : this.byOperationKey.get(request.agent ?? "")?.get(key)) ?? NONE;
  }

  /** The streams of the history that started and then failed or were cut, oldest first. */
  get failedStreams(): readonly ObservedRequest[] {
    return this.failed;
  }

  /** A request's connection closed: a failed stream still in the history joins the index. */
  closed(request: ObservedRequest): void {
    if (!isFailedStream(request) || this.failed.includes(request) || !this.ring.includes(request)) return;
    this.failed.push(request);
    // Closes come in any order; the index keeps the history's (arrival) order.
    const age = (r: ObservedRequest) => (this.ring.indexOf(r) - this.next + this.ring.length) % this.ring.length;
    this.failed.sort((a, b) => age(a) - age(b));
  }

  record(violation: RecordedViolation, cap: number): void {
    this.violations.push(violation);
    if (this.violations.length > cap) this.violations.splice(0, this.violations.length - cap);
    this.counts.set(violation.requirement, (this.counts.get(violation.requirement) ?? 0) + 1);
  }

  /** The oldest request left the history; it is the oldest entry of each index it is in. */
  private forget(request: ObservedRequest): void {
    if (this.failed[0] === request) this.failed.shift();
    const key = request.idempotencyKey;
    if (key === undefined) return;
    const agent = request.agent ?? "";
    const ofAgent = this.byOperationKey.get(agent);
    const same = ofAgent?.get(key);
    if (ofAgent === undefined || same === undefined) return;
    if (same[0] === request) same.shift();
    if (same.length === 0) ofAgent.delete(key);
    if (ofAgent.size === 0) this.byOperationKey.delete(agent);
  }
}

/**
 * The buckets of at most `maxKeys` API keys. A Map keeps insertion order, so re-inserting a
 * key on every use makes the first entry the least recently seen one: that is evicted first.
 */
export class KeyBuckets {
  private readonly buckets = new Map<string, KeyBucket>();
  /** The id touched last: touching it again changes no order. */
  private newest: string | undefined;

  constructor(private readonly maxKeys: number) {}

  /** The bucket of a key, created if needed and marked as just seen. */
  touch(token: string | undefined): KeyBucket {
    // Requests without a readable key share one bucket; "\0" cannot occur in a header value.
    const id = token ?? "\0none";
    const known = this.buckets.get(id);
    if (known !== undefined && id === this.newest) return known;
    const bucket = known ?? new KeyBucket(token);
    this.buckets.delete(id);
    this.buckets.set(id, bucket);
    this.newest = id;
    while (this.buckets.size > this.maxKeys) {
      const oldest = this.buckets.keys().next().value;
      if (oldest === undefined) break;
      this.buckets.delete(oldest);
    }
    return bucket;
  }

  get size(): number {
    return this.buckets.size;
  }

  all(): IterableIterator<KeyBucket> {
    return this.buckets.values();
  }

  clear(): void {
    this.buckets.clear();
    this.newest = undefined;
  }
}
