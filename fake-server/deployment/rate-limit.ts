/**
 * A token bucket per API key (the rate-limited variant), in front of every /v1 request with
 * a valid key. A request finding less than one token is answered 429 with `Retry-After`
 * and takes nothing, so it changes nothing and costs the key nothing.
 */
import type { Behavior, RateLimit } from "../behavior/behavior.ts";
import type { Clock } from "../runtime/clock.ts";
import { ApiError } from "../http/api-error.ts";

/**
 * The variant's numbers: bursts of 40, then 20 requests a second per key. A full suite run at
 * concurrency 4 sends about 350 requests over 10 to 20 s, in bursts far above 20 a second:
 * measured, it found the bucket empty about 12 times (60/30: 5 times; 30/15: 20; 20/10: 32),
 * each time one connection waiting 1 s while the bucket refills, which added about 5 s.
 */
export const RATE_LIMIT: RateLimit = Object.freeze({ capacity: 40, refillPerSecond: 20 });

class Bucket {
  constructor(
    public tokens: number,
    public at: number,
  ) {}
}

export class TokenBuckets {
  private readonly buckets = new Map<string, Bucket>();

  constructor(
    private readonly limit: RateLimit,
    private readonly clock: Clock,
  ) {}

  /** Takes a token of `key`'s bucket; when it holds less than one, takes nothing and returns the 429 to answer. */
  take(key: string): ApiError | undefined {
    const now = this.clock.now();
    const { capacity, refillPerSecond } = this.limit;
    let bucket = this.buckets.get(key);
    if (bucket === undefined) this.buckets.set(key, (bucket = new Bucket(capacity, now)));
    bucket.tokens = Math.min(capacity, bucket.tokens + ((now - bucket.at) * refillPerSecond) / 1000);
    bucket.at = now;
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1;
      return undefined;
    }
    // Whole seconds until a token is back, at least 1 (Retry-After is delta-seconds).
    const seconds = Math.max(1, Math.ceil((1 - bucket.tokens) / refillPerSecond));
    return new ApiError(
      429,
      "rate_limited",
      `this API key may send ${capacity} requests at once and ${refillPerSecond} a second after that; ` +
        `retry after ${seconds} s (nothing was done)`,
      { "Retry-After": String(seconds) },
    );
  }

  /** Every bucket full again. */
  clear(): void {
    this.buckets.clear();
  }
}

/** The buckets of this behavior, or undefined when it has no rate limit. */
export function rateLimiterFor(behavior: Pick<Behavior, "rateLimit">, clock: Clock): TokenBuckets | undefined {
  return behavior.rateLimit === null ? undefined : new TokenBuckets(behavior.rateLimit, clock);
}
