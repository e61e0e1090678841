/**
 * Cost control for live targets: a ledger of create operations (plain + stream), process-wide
 * in the worker that runs the checks. The cap on requests in flight is http/concurrency.ts.
 */

import type { CreateHold } from "../../http/client.ts";

/** What one check reserved from the ledger; unspent creates go back when it is released. */
export interface Reservation {
  readonly reserved: number;
  /** Creates the target accepted. */
  spent(): number;
  /** Holds one create before it is sent; undefined when the reservation has none left. */
  tryHold(): CreateHold | undefined;
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

  /** Creates the target accepted so far. */
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
    let spent = 0;
    let held = 0;
    let released = false;
    return {
      reserved: n,
      spent: () => spent,
      tryHold: () => {
        if (released || spent + held >= n) return undefined;
        held++;
        let settled = false;
        return {
          settle: (consumed) => {
            if (settled) return;
            settled = true;
            held--;
            if (!consumed) return;
            spent++;
            // A hold settled after its check ended still counts, but comes out of the free budget.
            if (released) this.#spent++;
            else {
              this.#reserved--;
              this.#spent++;
            }
          },
        };
      },
      release: () => {
        if (released) return;
        released = true;
        this.#reserved -= n - spent;
      },
    };
  }

  /** The skip reason of a check that cannot reserve. */
  skipReason(n: number): string {
    return `budget: needs ${n} creates, ${Math.max(0, this.remaining())} left`;
  }
}
