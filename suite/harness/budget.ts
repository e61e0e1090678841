/**
 * Cost control for live targets: a ledger of create operations (plain + stream) and a cap on
 * requests in flight. Both are process-wide in the worker that runs the checks.
 */

/** What one check reserved from the ledger; unspent creates go back when it is released. */
export interface Reservation {
  readonly reserved: number;
  spent(): number;
  /** Counts one create; false when it would exceed the reservation. */
  trySpend(): boolean;
  release(): void;
}

export class BudgetLedger {
  readonly #max: number;
  #reserved = 0;
  #spent = 0;

  constructor(max: number) {
    this.#max = max;
  }

  get max(): number {
    return this.#max;
  }

  /** Creates actually made so far. */
  get spent(): number {
    return this.#spent;
  }

  /** Creates neither spent nor held by a running check. */
  remaining(): number {
    return this.#max - this.#spent - this.#reserved;
  }

  /** Holds `n` creates for one check, or returns undefined when the budget cannot cover them. */
  tryReserve(n: number): Reservation | undefined {
    if (!Number.isInteger(n) || n < 0) throw new RangeError(`creates must be a whole number ≥ 0, got ${n}`);
    if (n > this.remaining()) return undefined;
    this.#reserved += n;
    let used = 0;
    let released = false;
    return {
      reserved: n,
      spent: () => used,
      trySpend: () => {
        if (released || used >= n) return false;
        used++;
        this.#reserved--;
        this.#spent++;
        return true;
      },
      release: () => {
        if (released) return;
        released = true;
        this.#reserved -= n - used;
      },
    };
  }

  /** One create outside any check (there should be none; kept so nothing escapes the cap). */
  trySpendUnreserved(): boolean {
    if (this.remaining() < 1) return false;
    this.#spent++;
    return true;
  }

  /** The skip reason of a check that cannot reserve. */
  skipReason(n: number): string {
    return `budget: needs ${n} creates, ${Math.max(0, this.remaining())} left`;
  }
}

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
