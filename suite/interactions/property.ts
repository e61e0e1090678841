/**
 * The interaction property: each sequence is a walk (walk.ts) whose every step fast-check draws
 * from what the sequence's state enables, weighted towards the cells the run has not covered;
 * each command runs against the target (execute.ts) with every answer fed to the model, and
 * the first violation ends the run. The run's coverage (coverage.ts) is shared by its sequences,
 * so the later ones go where the earlier ones did not. fast-check's own shrinking would cost
 * creates, so it is off (endOnFailure); the failing history is shrunk offline (shrink.ts),
 * replayed once to confirm it (confirm.ts), and reported with the seed and path that run the
 * same sequences again.
 */
import fc from "fast-check";
import { breaksInSharedTraffic } from "../model/model.ts";
import type { Violation } from "../model/violation.ts";
import { confirm } from "./confirm.ts";
import { coverageOf, type InteractionsSummary } from "./coverage.ts";
import { buildCounterexample, type Counterexample } from "./counterexample.ts";
import { runCommand } from "./execute.ts";
import { Session, Tally, type Entry, type InteractionTarget } from "./session.ts";
import { shrinkHistory } from "./shrink.ts";
import { CELLS } from "./space.ts";
import { nextCommand } from "./walk.ts";

export interface PropertyOptions {
  readonly seed: number;
  /**
   * The sequence (0, 1, …) a counterexample names. Later sequences are steered by what earlier
   * ones covered, so the run replays every sequence up to it, and stops there.
   */
  readonly path?: string | undefined;
  /** Sequences to run at most. */
  readonly runs: number;
  /** Creates one sequence may spend. */
  readonly createsPerRun: number;
  /** Commands one sequence may run (default 60). */
  readonly steps?: number;
  /** Stop starting sequences once every cell is covered (the deep profile runs until then or until the budget ends). */
  readonly untilCovered?: boolean;
  /** The command line that replays a run, from its seed and path. */
  readonly replayCommand: (seed: number, path: string) => string;
}

/** A SHOULD the property saw broken, and the history that showed it. */
export interface Warning {
  readonly violation: Violation;
  readonly counterexample: Counterexample;
}

export interface PropertyOutcome {
  readonly runs: number;
  readonly operations: number;
  readonly creates: number;
  /** Same-key races sent (one key on several requests at once). */
  readonly races: number;
  readonly failure: Counterexample | undefined;
  readonly warnings: readonly Warning[];
  /** Runs the model could no longer judge (too many possibilities), with why. */
  readonly undecided: readonly string[];
  /** What the run explored: conformance.json's `interactions`. */
  readonly summary: InteractionsSummary;
}

/** A sequence ends when this many commands in a row covered nothing new. */
const STALE_STEPS = 15;
/**
 * A bound on a sequence's commands. Most are free (listings, refusals, replays): 80 ended some
 * sequences with creates unspent and free cells unmet; 200 leaves the budget and the stale rule
 * to end them.
 */
const DEFAULT_STEPS = 200;

/** Whether the run met every reachable cell of every dimension (what a deep run walks for). */
function everyCellCovered(covered: Tally): boolean {
  const coverage = coverageOf(CELLS, covered.cells());
  return Object.values(coverage).every((d) => d.covered === d.total);
}

export async function runInteractionProperty(
  target: InteractionTarget,
  options: PropertyOptions,
): Promise<PropertyOutcome> {
  let runs = 0;
  let operations = 0;
  let creates = 0;
  let races = 0;
  let failing: { session: Session; index: number } | undefined;
  const covered = new Tally();
  const tried = new Tally();
  const warnings: { violation: Violation; entries: readonly Entry[] }[] = [];
  const undecided: string[] = [];
  const last = options.path === undefined ? undefined : Number(options.path.split(":")[0]);
  let index = -1;

  const property = fc.asyncProperty(fc.gen(), async (g) => {
    index++;
    if (options.untilCovered === true && everyCellCovered(covered)) return true;
    if (target.remainingCreates() <= 0 && runs > 0) return true;
    runs++;
    const session = new Session(target, options.createsPerRun, covered, tried);
    let stale = 0;
    for (let step = 0; step < (options.steps ?? DEFAULT_STEPS) && session.failure === undefined; step++) {
      const before = covered.size;
      const next = nextCommand(g, session);
      if (next === undefined) break;
      tried.add(next.offered);
      await runCommand(session, next.command);
      stale = covered.size > before ? 0 : stale + 1;
      if (stale >= STALE_STEPS) break;
    }
    for (const key of session.keys) if (key.dropped && !key.retried) covered.add(["client:cancel-without-retry"]);
    operations += session.entries.length;
    creates += session.createsUsed;
    races += session.races;
    for (const w of session.warnings) {
      if (!warnings.some((seen) => seen.violation.requirement === w.requirement))
        warnings.push({ violation: w, entries: [...session.entries] });
    }
    if (session.undecided !== undefined) undecided.push(session.undecided);
    if (session.failure === undefined) return true;
    failing = { session, index };
    return false;
  });
  const details = await fc.check(property, {
    seed: options.seed,
    numRuns: last === undefined ? Math.max(1, options.runs) : last + 1,
    endOnFailure: true,
  });
  if (details.failed && failing === undefined)
    throw details.errorInstance ?? new Error("the interaction property could not run");

  const path = String(failing?.index ?? last ?? 0);
  const report = async (
    entries: readonly Entry[],
    violation: Violation,
    replayOnce: boolean,
  ): Promise<Counterexample> => {
    const shrunk = shrinkHistory(entries, violation);
    const confirmation = replayOnce
      ? await confirm(target, shrunk.entries, shrunk.violation)
      : "not replayed: the create budget is spent";
    const counterexample = buildCounterexample(shrunk.entries, shrunk.violation, {
      historyLength: entries.length,
      seed: options.seed,
      path,
      confirmation,
      replay: options.replayCommand(options.seed, path),
    });
    return breaksInSharedTraffic(
      shrunk.entries.map((e) => e.op),
      shrunk.violation.requirement,
    )
      ? counterexample
      : { ...counterexample, ownTrafficOnly: true };
  };
  const found = failing?.session;
  const failure = found?.failure === undefined ? undefined : await report(found.entries, found.failure, true);
  const shouldWarnings: Warning[] = [];
  for (const w of warnings)
    shouldWarnings.push({ violation: w.violation, counterexample: await report(w.entries, w.violation, false) });
  const summary: InteractionsSummary = {
    seeds: [options.seed],
    sequences: runs,
    operations,
    creates,
    coverage: coverageOf(CELLS, covered.cells()),
  };
  return { runs, operations, creates, races, failure, warnings: shouldWarnings, undecided, summary };
}
