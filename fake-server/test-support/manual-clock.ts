/**
 * A clock only a test moves, so expiry, windows and timestamps are tested without sleeping.
 */
import type { Clock } from "../runtime/clock.ts";

/** A clock that only moves when told to, for tests of expiry and timestamps. */
export class ManualClock implements Clock {
  constructor(private current: number = Date.UTC(2026, 0, 2, 3, 4, 5, 678)) {}
  now(): number {
    return this.current;
  }
  advance(ms: number): void {
    this.current += ms;
  }
}
