/**
 * Shared fixtures: what several checks only read (a conversation and its listing, a stream) is
 * built once per run, by the first check that uses it, and handed to every later one. The
 * fixture reserves its own creates from the run's budget; the check that builds it gets the
 * fixture's time allowance added to its own deadline. A fixture that failed to build fails
 * (or leaves inconclusive) every check that uses it, with the same error.
 */

import type { BudgetLedger } from "./budget.ts";
import type { RunSettings } from "./run-settings.ts";
import { CheckScope, checkScopes } from "./check-scope.ts";
import { fixtureCreates, reservationFor } from "./check-plan.ts";
import { interactionsSummaryOf } from "../../report/interactions-summary.ts";
import type { SharedFixture, Target } from "./types.ts";

type Profile = RunSettings["profile"];

export type { SharedFixture };

export function sharedFixture<T>(
  name: string,
  creates: number,
  build: (target: Target) => Promise<T>,
  budget: { readonly minCreates?: number; readonly smokeCreates?: number; readonly deepCreates?: number } = {},
): SharedFixture<T> {
  return Object.freeze({ name, creates, build, ...budget });
}

/** The creates a fixture needs to be built at all: all it asks for, or its minimum when it takes what is left. */
export function neededCreates(fixture: SharedFixture<unknown>, profile: Profile): number {
  return Math.min(fixture.minCreates ?? Number.POSITIVE_INFINITY, fixtureCreates(fixture, profile));
}

/** The fixtures built (or being built) in this worker, by name. */
const STORE_KEY = Symbol.for("agent-conformance.shared-fixtures");
const built = ((globalThis as Record<symbol, unknown>)[STORE_KEY] ??= new Map<string, Promise<unknown>>()) as Map<
  string,
  Promise<unknown>
>;

/** Whether the fixture still has to be built (its creates are then needed from the budget). */
export function isBuilt(fixture: SharedFixture<unknown>): boolean {
  return built.has(fixture.name);
}

/**
 * The fixture's value: built now under the running check (charged to the fixture's own
 * reservation, the time `extendMs` gives its creates added to the check's deadline), or the
 * value an earlier check built.
 * Undefined when the budget cannot cover a build.
 */
export function useFixture<T>(
  fixture: SharedFixture<T>,
  target: Target,
  ledger: BudgetLedger,
  extendMs: (creates: number) => number,
  profile: Profile,
): Promise<T> | undefined {
  const existing = built.get(fixture.name);
  if (existing !== undefined) return existing as Promise<T>;
  const reservation = ledger.tryReserve(
    reservationFor(fixtureCreates(fixture, profile), fixture.minCreates, ledger.remaining()),
  );
  if (reservation === undefined) return undefined;
  const parent = checkScopes.getStore();
  const scope = new CheckScope(`${parent?.title ?? ""} (building the shared ${fixture.name})`, reservation);
  // The fixture's requests stop when the check that builds it runs out of time.
  parent?.controller.signal.addEventListener("abort", () => scope.controller.abort(parent.controller.signal.reason), {
    once: true,
  });
  // A deep run's fixture may reserve far more than it asks for elsewhere: its time grows with it.
  parent?.extend(extendMs(Math.max(fixture.creates, reservation.reserved)));
  const promise = checkScopes
    .run(scope, () => fixture.build(target))
    .then((value) => {
      // The property's outcome carries what it explored: the check that built it hands that to the report.
      scope.interactions = interactionsSummaryOf(value);
      return value;
    })
    .finally(() => {
      reservation.release();
      if (parent !== undefined) parent.adopt(scope);
    });
  built.set(fixture.name, promise);
  return promise;
}
