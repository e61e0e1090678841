/**
 * An overloaded service (the overloaded variant): every Nth create of an API key, plain or
 * stream, is answered 503 with `Retry-After: 1` before anything is done. The count is per
 * key and deterministic, so the retry that follows is served.
 */
import type { Behavior } from "../behavior/behavior.ts";
import { ApiError } from "../http/api-error.ts";

/**
 * Every 6th create: about 8 of 50 continuations of one conversation, and about 20 creates of a
 * full suite run (about 100 creates), each costing the client a second of waiting; every 4th
 * doubled such a run's time.
 */
export const OVERLOAD_EVERY = 6;

export class Overload {
  private readonly creates = new Map<string, number>();

  constructor(
    private readonly every: number,
    /** Mutant only: the 503 comes after the exchange was stored, with its key forgotten. */
    readonly afterCommit: boolean,
  ) {}

  /** Counts a create of `key`; true when this one is refused. */
  hit(key: string): boolean {
    const count = (this.creates.get(key) ?? 0) + 1;
    this.creates.set(key, count);
    return count % this.every === 0;
  }

  clear(): void {
    this.creates.clear();
  }
}

/** The 503 of an overloaded create. */
export function overloaded(): ApiError {
  return new ApiError(
    503,
    "service_unavailable",
    "the service is overloaded; retry after 1 s with the same Idempotency-Key",
    {
      "Retry-After": "1",
    },
  );
}

/** The create counter of this behavior, or undefined when it is never overloaded. */
export function overloadFor(behavior: Pick<Behavior, "overloadEvery" | "broken">): Overload | undefined {
  return behavior.overloadEvery === 0
    ? undefined
    : new Overload(behavior.overloadEvery, behavior.broken.overloadAfterCommit);
}
