import type { ObservedRequest } from "./observed-request.ts";

/** A violation as recorded; rendered on read, so its requests show their latest status. */
export interface RecordedViolation {
  /** Global order of recording, for listing several keys oldest first. */
  readonly sequence: number;
  readonly requirement: string;
  readonly message: string;
  readonly at: number;
  readonly requests: readonly ObservedRequest[];
}

/** Everything the observer keeps about one API key (or about requests with none). */
export class KeyBucket {
  /** Recent create requests, oldest first. */
  readonly history: ObservedRequest[] = [];
  /** Recent violations, oldest first. */
  readonly violations: RecordedViolation[] = [];
  /** Violations per requirement since the bucket was created, evicted entries included. */
  readonly counts = new Map<string, number>();

  constructor(
    /** The full bearer token, kept only to match filters; undefined when none could be read. */
    readonly token: string | undefined,
    /** How the key is shown: its first 6 characters and "…", or null. */
    readonly shownAs: string | null,
  ) {}

  remember(request: ObservedRequest, cap: number): void {
    this.history.push(request);
    if (this.history.length > cap) this.history.splice(0, this.history.length - cap);
  }

  record(violation: RecordedViolation, cap: number): void {
    this.violations.push(violation);
    if (this.violations.length > cap) this.violations.splice(0, this.violations.length - cap);
    this.counts.set(violation.requirement, (this.counts.get(violation.requirement) ?? 0) + 1);
  }
}

/**
 * The buckets of at most `maxKeys` API keys. A Map keeps insertion order, so re-inserting a
 * key on every use makes the first entry the least recently seen one: that is evicted first.
 */
export class KeyBuckets {
  private readonly buckets = new Map<string, KeyBucket>();

  constructor(private readonly maxKeys: number) {}

  /** The bucket of a key, created if needed and marked as just seen. */
  touch(token: string | undefined, shownAs: string | null): KeyBucket {
    // Requests without a readable key share one bucket; "\0" cannot occur in a header value.
    const id = token ?? "\0none";
    const bucket = this.buckets.get(id) ?? new KeyBucket(token, shownAs);
    this.buckets.delete(id);
    this.buckets.set(id, bucket);
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
  }
}
