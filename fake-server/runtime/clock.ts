/** Wall-clock time in epoch milliseconds; injected so tests can move time without sleeping. */
export interface Clock {
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };

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
