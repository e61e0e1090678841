/** Counts request handlers still running, so tests and shutdown can wait for them to settle. */
export class InFlight {
  private count = 0;
  private waiters: (() => void)[] = [];

  get size(): number {
    return this.count;
  }

  async run(task: () => Promise<void>): Promise<void> {
    this.count++;
    try {
      await task();
    } finally {
      this.count--;
      if (this.count === 0) {
        const waiters = this.waiters;
        this.waiters = [];
        for (const wake of waiters) wake();
      }
    }
  }

  /** Resolves once no handler is running. */
  whenIdle(): Promise<void> {
    if (this.count === 0) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push(resolve));
  }
}
