/**
 * The interaction property: fast-check generates command sequences over one or two
 * conversations (commands.ts), each sequence runs against the target (execute.ts) with every
 * answer fed to the model, and the first violation ends the run. fast-check's own shrinking
 * would cost creates, so it is off (endOnFailure); the failing history is shrunk offline
 * (shrink.ts), replayed once to confirm it (confirm.ts), and reported as a counterexample
 * with the seed and path that run the same sequence again.
 */
import fc from "fast-check";
import type { Violation } from "../model/violation.ts";
import { commands } from "./commands.ts";
import { confirm } from "./confirm.ts";
import { buildCounterexample, type Counterexample } from "./counterexample.ts";
import { runCommand } from "./execute.ts";
import { Session, type Entry, type InteractionTarget } from "./session.ts";
import { shrinkHistory } from "./shrink.ts";

export interface PropertyOptions {
  readonly seed: number;
  /** fast-check's path of a failing run: with the same seed, runs exactly that sequence. */
  readonly path?: string | undefined;
  /** Sequences to run at most. */
  readonly runs: number;
  /** Creates one sequence may spend. */
  readonly createsPerRun: number;
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
}

export async function runInteractionProperty(target: InteractionTarget, options: PropertyOptions): Promise<PropertyOutcome> {
  let runs = 0;
  let operations = 0;
  let creates = 0;
  let races = 0;
  let failing: Session | undefined;
  const warnings: { violation: Violation; entries: readonly Entry[] }[] = [];
  const undecided: string[] = [];

  const property = fc.asyncProperty(commands, async (sequence) => {
    runs++;
    const session = new Session(target, options.createsPerRun);
    for (const command of sequence) {
      await runCommand(session, command);
      if (session.failure !== undefined) break;
    }
    operations += session.entries.length;
    creates += session.createsUsed;
    races += session.races;
    for (const w of session.warnings) {
      if (!warnings.some((seen) => seen.violation.requirement === w.requirement)) warnings.push({ violation: w, entries: [...session.entries] });
    }
    if (session.model.undecided !== undefined) undecided.push(session.model.undecided);
    if (session.failure === undefined) return true;
    failing = session;
    return false;
  });
  const details = await fc.check(property, {
    seed: options.seed,
    ...(options.path === undefined ? {} : { path: options.path }),
    numRuns: Math.max(1, options.runs),
    endOnFailure: true,
  });
  if (details.failed && failing === undefined) throw details.errorInstance ?? new Error("the interaction property could not run");

  const path = details.counterexamplePath ?? options.path ?? "0";
  const report = async (entries: readonly Entry[], violation: Violation, replayOnce: boolean): Promise<Counterexample> => {
    const shrunk = shrinkHistory(entries, violation);
    const confirmation = replayOnce ? await confirm(target, shrunk.entries, shrunk.violation) : "not replayed: the create budget is spent";
    return buildCounterexample(shrunk.entries, shrunk.violation, {
      historyLength: entries.length,
      seed: options.seed,
      path,
      confirmation,
      replay: options.replayCommand(options.seed, path),
    });
  };
  const found = failing as Session | undefined;
  const failure = found?.failure === undefined ? undefined : await report(found.entries, found.failure, true);
  const shouldWarnings: Warning[] = [];
  for (const w of warnings) shouldWarnings.push({ violation: w.violation, counterexample: await report(w.entries, w.violation, false) });
  return { runs, operations, creates, races, failure, warnings: shouldWarnings, undecided };
}
