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

  /** Resolves after `ms`, or as soon as `signal` aborts (never rejects). */
  sleep(ms: number, signal: AbortSignal): Promise<void> {
    if (ms <= 0 || signal.aborted) return Promise.resolve();
    return new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(handle);
        this.pending.delete(handle);
        signal.removeEventListener("abort", done);
        resolve();
      };
      const handle = setTimeout(done, ms);
      this.pending.add(handle);
      signal.addEventListener("abort", done, { once: true });
    });
  }
}
