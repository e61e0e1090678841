/** The cap on requests in flight, shared by every client of a run. */

/** A counting semaphore: at most `limit` holders at once, waiters served in order. */
export class Semaphore {
  readonly #limit: number;
  #held = 0;
  readonly #waiters: (() => void)[] = [];

  constructor(limit: number) {
    if (!Number.isInteger(limit) || limit < 1) throw new RangeError(`limit must be a whole number ≥ 1, got ${limit}`);
    this.#limit = limit;
  }

  get held(): number {
    return this.#held;
  }

  /** Resolves with a release function once a slot is free; rejects if `signal` aborts first. */
  acquire(signal?: AbortSignal): Promise<() => void> {
    signal?.throwIfAborted();
    const grant = (): (() => void) => {
      let done = false;
      return () => {
        if (done) return;
        done = true;
        this.#held--;
        const next = this.#waiters.shift();
        if (next) next();
      };
    };
    if (this.#held < this.#limit) {
      this.#held++;
      return Promise.resolve(grant());
    }
    return new Promise((resolve, reject) => {
      const onAbort = () => {
        const index = this.#waiters.indexOf(wake);
        if (index !== -1) this.#waiters.splice(index, 1);
        reject(signal?.reason);
      };
      const wake = () => {
        signal?.removeEventListener("abort", onAbort);
        this.#held++;
        resolve(grant());
      };
      this.#waiters.push(wake);
      signal?.addEventListener("abort", onAbort, { once: true });
    });
  }
}
