/**
 * Every pause the fake takes (latency injection, the gap between deltas) goes through
 * this registry, so the server can prove it releases all of them: `active` is the number
 * of pending timeouts, and an aborted pause clears its timeout at once.
 */
export class TimerRegistry {
  private readonly pending = new Set<NodeJS.Timeout>();

  get active(): number {
    return this.pending.size;
  }

  /**
   * Resolves after `ms`, or as soon as any of `signals` aborts (never rejects). Listeners
   * are removed when it settles, so long-lived signals do not collect them.
   */
  sleep(ms: number, signals: readonly AbortSignal[]): Promise<void> {
    if (ms <= 0 || signals.some((signal) => signal.aborted)) return Promise.resolve();
    return new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(handle);
        this.pending.delete(handle);
        for (const signal of signals) signal.removeEventListener("abort", done);
        resolve();
      };
      const handle = setTimeout(done, ms);
      this.pending.add(handle);
      for (const signal of signals) signal.addEventListener("abort", done, { once: true });
    });
  }
}
