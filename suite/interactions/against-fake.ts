/**
 * The property against the reference fake started with `fakeOptions` (a variant, a mutant), for
 * as many seeds as asked, one sequence each: what the project's tests and `npm run
 * interactions` run.
 */
import { createFakeServer } from "../../fake-server/index.ts";
import { runInteractionProperty, type PropertyOutcome } from "./property.ts";
import { identitiesOf, standaloneTarget } from "./standalone.ts";
import { DEFAULT_IDENTITIES } from "../../fake-server/access/default-identities.ts";

export interface SeedOutcome {
  readonly seed: number;
  readonly outcome: PropertyOutcome;
}

export interface FakeRunOptions {
  readonly fakeOptions: Record<string, unknown>;
  readonly seeds: readonly number[];
  /** Sequences per seed (default 1). */
  readonly runs?: number;
  /** Creates per sequence (default 12). */
  readonly createsPerRun?: number;
  /** Stop at the first seed that fails (default true). */
  readonly stopAtFailure?: boolean;
  /** fast-check's path of one run, to replay it (with its seed). */
  readonly path?: string | undefined;
}

export async function propertyAgainstFake(options: FakeRunOptions): Promise<SeedOutcome[]> {
  const fake = await createFakeServer({ port: 0, ...options.fakeOptions });
  const { target, close } = standaloneTarget({ baseUrl: fake.url, ...identitiesOf(DEFAULT_IDENTITIES) });
  const outcomes: SeedOutcome[] = [];
  try {
    for (const seed of options.seeds) {
      const outcome = await runInteractionProperty(target, {
        seed,
        path: options.path,
        runs: options.runs ?? 1,
        createsPerRun: options.createsPerRun ?? 12,
        replayCommand: (s, path) => `npm run interactions -- --seed ${s} --path ${path}`,
      });
      outcomes.push({ seed, outcome });
      if (outcome.failure !== undefined && options.stopAtFailure !== false) break;
    }
  } finally {
    await close();
    await fake.close();
  }
  return outcomes;
}
