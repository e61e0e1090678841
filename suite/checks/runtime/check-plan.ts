/**
 * What a check declares, as check() registers it: whether the run's selection takes it, the
 * creates it reserves, the shared fixtures it reads (and what each asks for in this run's
 * profile), the identities it needs, and whether the smoke profile runs it. It travels in the
 * test's meta, so that a dry run can say what a run would do without running a check, and the
 * progress can count only the checks the run selected.
 */
import type { RunSettings } from "./run-settings.ts";
import type { Need, SharedFixture } from "./types.ts";

/** A shared fixture as a plan states it: the creates it asks for ("rest": all the budget leaves) and, if it takes what is left, its least. */
export interface FixturePlan {
  readonly name: string;
  readonly asked: number | "rest";
  readonly least?: number;
}

export interface CheckPlan {
  /** Taken by --only, --exclude and --shard; a check not taken judges nothing and counts nowhere. */
  readonly selected: boolean;
  readonly creates: number;
  readonly uses: readonly FixturePlan[];
  readonly needs: readonly Need[];
  readonly smoke: boolean;
}

declare module "vitest" {
  interface TaskMeta {
    /** What the check declared when it registered (check-plan.ts). */
    conformancePlan?: CheckPlan;
  }
}

/** The creates a fixture asks for in a profile (Infinity: whatever the budget leaves). */
export function fixtureCreates(fixture: SharedFixture<unknown>, profile: RunSettings["profile"]): number {
  if (profile === "smoke" && fixture.smokeCreates !== undefined) return fixture.smokeCreates;
  if (profile === "deep" && fixture.deepCreates !== undefined) return fixture.deepCreates;
  return fixture.creates;
}

/**
 * What a build reserves with `remaining` creates left: all it asks for, or, for a fixture that
 * takes what is left, what is left of that, and never less than its least.
 */
export function reservationFor(asked: number, least: number | undefined, remaining: number): number {
  return least === undefined ? asked : Math.max(Math.min(least, asked), Math.min(asked, remaining));
}

/** The creates a fixture asks for in a profile as a plan states it: Infinity (take all that is left) becomes "rest", which survives the trip to the runner. */
export function fixturePlan(fixture: SharedFixture<unknown>, profile: RunSettings["profile"]): FixturePlan {
  const asked = fixtureCreates(fixture, profile);
  return {
    name: fixture.name,
    asked: Number.isFinite(asked) ? asked : "rest",
    ...(fixture.minCreates === undefined ? {} : { least: fixture.minCreates }),
  };
}
