/** Counts request handlers still running, so tests and shutdown can wait for them to settle. */
export class InFlight {
  private count = 0;
  private waiters: (() => void)[] = [];

  get size(): number {
    return this.count;
  }

  /** A handler started; `leave` must follow when it has settled, whichever way. */
  enter(): void {
    this.count++;
  }

  leave(): void {
    this.count--;
    if (this.count === 0) {
      const waiters = this.waiters;
      this.waiters = [];
      for (const wake of waiters) wake();
    }
  }

  /** Resolves once no handler is running. */
  whenIdle(): Promise<void> {
    if (this.count === 0) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push(resolve));
  }
}
