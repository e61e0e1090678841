/**
 * The report of a run a signal stopped: every check that had not ended when the stop came (or
 * never started) judged nothing, and says so with the run's reason, "interrupted by SIGINT after
 * N of M checks" (M: the checks the run selected; N: those that ended before the stop). The
 * result is "incomplete" whatever was judged by then; the exit code is the signal's (130, 143).
 */

import type { ConformanceReport, InterruptedReport } from "../report/report-types.ts";
import type { BuiltReport, TestOutcome } from "./build-report.ts";
import type { StopSignal } from "./interruption.ts";

/** A test the user's selection left out registers as a bare skip: no reason, no check meta. */
const unselected = (o: TestOutcome) => o.state === "skipped" && o.note === undefined && o.check === undefined;
const unfinished = (o: TestOutcome) => o.state === "pending" || o.check?.interrupted !== undefined;

export interface InterruptedOutcomes {
  outcomes: TestOutcome[];
  interrupted: InterruptedReport;
}

/** The outcomes with every check the stop cut or kept from starting made a skip, and the run's reason. */
export function markInterrupted(
  outcomes: readonly TestOutcome[],
  signal: StopSignal,
  atOnce: boolean,
): InterruptedOutcomes {
  const selected = outcomes.filter((o) => !unselected(o) && o.check?.excluded === undefined);
  const done = selected.filter((o) => !unfinished(o)).length;
  const reason = `interrupted by ${signal} after ${done} of ${selected.length} checks`;
  const marked = outcomes.map((o): TestOutcome => {
    if (!unfinished(o)) return o;
    const waiting = o.check?.waiting;
    return {
      ...o,
      state: "skipped",
      errors: [],
      note: `not judged: ${reason}`,
      evidence: undefined,
      check: waiting === undefined ? {} : { waiting },
    };
  });
  return { outcomes: marked, interrupted: { signal, reason, checks: { done, total: selected.length }, atOnce } };
}

/** The built report of an interrupted run: result "incomplete", with what stopped it. */
export function asInterrupted(built: BuiltReport, interrupted: InterruptedReport): BuiltReport {
  return { ...built, report: { ...built.report, result: "incomplete", interrupted } };
}

/** What the console says of the stop, after the summary. */
export function interruptedLines(report: ConformanceReport): string[] {
  const stop = report.interrupted;
  if (stop === undefined) return [];
  const failed = report.cleanup.failed;
  const lines = [
    `Interrupted: ${stop.reason}${stop.atOnce ? ", stopped at once" : ""}; ${report.cleanup.deleted} conversation(s) the run created deleted.`,
  ];
  if (failed.length > 0) {
    lines.push(`Left on the target (${failed.length} conversation(s) not deleted):`);
    for (const f of failed) lines.push(`  ${f.conversationId}: ${f.reason}`);
  }
  return lines;
}
