/**
 * The interaction property's kill rate: each interaction mutant of the fake, run N times with
 * seeds from a random base, with the create allowance the property has in a profile (full 24,
 * smoke 6), counting the runs that caught the mutant by its own requirement (its failure's
 * requirement, or for a SHOULD a warning's). Runs go a few at once, each against a fake of its
 * own.
 */
import { requirementById } from "../../requirements/catalog.ts";
import { MUTANTS, type Mutant } from "../../fake-server/variants/mutants.ts";
import { propertyAgainstFake } from "../../suite/interactions/against-fake.ts";
import type { PropertyOutcome } from "../../suite/interactions/property.ts";
import { seedsFrom } from "../../suite/interactions/seeds.ts";

/** The creates the property gets in a conformance run of each profile (DESIGN, "Cost"). */
export const PROFILE_CREATES = { full: 24, smoke: 6 } as const;
export type KillProfile = keyof typeof PROFILE_CREATES;

export interface MutantRate {
  readonly mutant: string;
  readonly requirement: string;
  readonly runs: number;
  readonly caught: number;
  /** Seeds whose run did not catch it by its requirement, and what (if anything) it found instead. */
  readonly missed: readonly { readonly seed: number; readonly found: readonly string[] }[];
}

export interface KillRateTable {
  readonly profile: KillProfile;
  readonly createsPerRun: number;
  readonly runsPerMutant: number;
  readonly baseSeed: number;
  readonly mutants: readonly MutantRate[];
  readonly total: { readonly runs: number; readonly caught: number };
}

export const interactionMutants = (): readonly Mutant[] => MUTANTS.filter((m) => m.interaction);

/** Whether a run caught the mutant by its own requirement (or one the mutant says the same bug breaks). */
export function caughtBy(outcome: PropertyOutcome, requirement: string, also: readonly string[] = []): boolean {
  if (outcome.failure !== undefined && [requirement, ...also].includes(outcome.failure.requirement)) return true;
  return (
    requirementById(requirement)?.level === "SHOULD" &&
    outcome.warnings.some((w) => w.violation.requirement === requirement)
  );
}

/** What a run found: its failure and its warnings' requirements. */
const foundIn = (outcome: PropertyOutcome) => [
  ...(outcome.failure === undefined ? [] : [outcome.failure.requirement]),
  ...outcome.warnings.map((w) => w.violation.requirement),
];

/** Runs `tasks` with at most `limit` at once, in order of start, results in the tasks' order. */
async function bounded<T>(tasks: readonly (() => Promise<T>)[], limit: number): Promise<T[]> {
  const results: T[] = new Array<T>(tasks.length);
  let next = 0;
  const worker = async () => {
    while (next < tasks.length) {
      const i = next++;
      results[i] = await (tasks[i] as () => Promise<T>)();
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, tasks.length) }, worker));
  return results;
}

export interface KillRateOptions {
  readonly mutants: readonly Mutant[];
  readonly runs: number;
  readonly profile: KillProfile;
  readonly baseSeed: number;
  /** Runs at once (default 4). */
  readonly concurrency?: number;
  /** Told each finished run, for progress. */
  readonly onRun?: (mutant: Mutant, seed: number, caught: boolean) => void;
}

export async function killRate(options: KillRateOptions): Promise<KillRateTable> {
  const createsPerRun = PROFILE_CREATES[options.profile];
  const seeds = seedsFrom(options.baseSeed, options.runs);
  const tasks = options.mutants.flatMap((mutant) =>
    seeds.map((seed) => async () => {
      const [run] = await propertyAgainstFake({
        fakeOptions: { mutant: mutant.name },
        seeds: [seed],
        runs: 1,
        createsPerRun,
      });
      if (run === undefined) throw new Error(`the property did not run against ${mutant.name} (seed ${seed})`);
      const caught = caughtBy(run.outcome, mutant.requirement, mutant.also);
      options.onRun?.(mutant, seed, caught);
      return { mutant, seed, caught, found: foundIn(run.outcome) };
    }),
  );
  const results = await bounded(tasks, options.concurrency ?? 4);
  const mutants = options.mutants.map((mutant): MutantRate => {
    const own = results.filter((r) => r.mutant === mutant);
    return {
      mutant: mutant.name,
      requirement: mutant.requirement,
      runs: own.length,
      caught: own.filter((r) => r.caught).length,
      missed: own.filter((r) => !r.caught).map((r) => ({ seed: r.seed, found: r.found })),
    };
  });
  return {
    profile: options.profile,
    createsPerRun,
    runsPerMutant: options.runs,
    baseSeed: options.baseSeed,
    mutants,
    total: { runs: results.length, caught: results.filter((r) => r.caught).length },
  };
}

/** The table as the console prints it: one line per mutant, then the total. */
export function killRateLines(table: KillRateTable): string[] {
  const width = Math.max(...table.mutants.map((m) => m.mutant.length), 6);
  const lines = table.mutants.map((m) => {
    const missed = m.missed
      .map((x) => `${x.seed}${x.found.length > 0 ? ` (found ${x.found.join(", ")})` : ""}`)
      .join(", ");
    return `  ${m.mutant.padEnd(width)}  ${m.requirement.padEnd(8)}  ${`${m.caught}/${m.runs}`.padStart(7)}${missed === "" ? "" : `  missed: seed ${missed}`}`;
  });
  const always = table.mutants.filter((m) => m.caught === m.runs).length;
  return [
    ...lines,
    `total: ${table.total.caught}/${table.total.runs} runs caught their mutant by its own requirement; ${always} of ${table.mutants.length} mutant(s) in every run`,
  ];
}
