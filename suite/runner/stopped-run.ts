/**
 * How a run a signal stopped waits, and what it writes when it cannot wait any longer.
 * After the first signal the checks get the in-flight bound and a margin to end on their own
 * (the worker starts no request and aborts what is still running at the bound); past that, or
 * on a second signal and a moment's grace, the run is reported from what the reporter has
 * seen so far, the conversations not deleted listed under cleanup.
 */

import { setTimeout as sleep } from "node:timers/promises";
import { join } from "node:path";
import { writeFile } from "node:fs/promises";
import { readJournal } from "../checks/runtime/journal.ts";
import { IN_FLIGHT_BOUND_MS } from "../checks/runtime/stop-request.ts";
import type { BuiltReport, ReportContext } from "./build-report.ts";
import { journalTotals } from "./cleanup.ts";
import { writeReport, type ConformanceReporter } from "./conformance-reporter.ts";
import type { Interruption, StopSignal } from "./interruption.ts";
import { junitOfReport } from "./report-junit.ts";

/** Beyond the in-flight bound: time for the checks' bodies to see their aborts and end. */
const CHECKS_END_MARGIN_MS = 10_000;
/** After a second signal: a moment for the run to end by itself (its requests are aborted at once). */
const AT_ONCE_GRACE_MS = 1_500;

/**
 * Settles when the run must be reported without waiting for vitest: on a second signal (after a
 * short grace), or when the checks did not end within their bound after the first. Never while
 * no signal came; `checksOver` stops the first signal's clock (cleanup may take its time).
 */
export async function mustStopNow(stop: Interruption, checksOver: () => boolean): Promise<void> {
  await Promise.race([
    stop.now,
    stop.stopped.then(async () => {
      await sleep(IN_FLIGHT_BOUND_MS + CHECKS_END_MARGIN_MS, undefined, { ref: false });
      if (!checksOver()) stop.escalate();
      return stop.now;
    }),
  ]);
  await sleep(AT_ONCE_GRACE_MS, undefined, { ref: false });
}

/** Why cleanup must not start another delete, once the run stops at once. */
export function atOnceReason(stop: Interruption | undefined): string | undefined {
  return stop?.atOnce === true && stop.signal !== undefined
    ? `the run was stopped at once (a second ${stop.signal})`
    : undefined;
}

interface ReportNow {
  reporter: ConformanceReporter;
  /** The report's context but for what only the journal tells: spending and what was left. */
  context: Omit<ReportContext, "creates" | "cleanup" | "harnessErrors">;
  journalPath: string;
  createBudget: number;
  /** Conversations cleanup deleted before the stop. */
  deleted: ReadonlySet<string>;
  /** Conversations whose DELETE cleanup sent (answered or not) before the stop. */
  deleteSent: ReadonlySet<string>;
  signal: StopSignal;
  reportDir: string;
}

/** conformance.json and junit.xml of the checks as they stand, every conversation not deleted named. */
export async function writeReportNow(now: ReportNow): Promise<BuiltReport> {
  const journal = readJournal(now.journalPath);
  const totals = journalTotals(journal.entries);
  const stopped = `the run was stopped at once (a second ${now.signal})`;
  // A DELETE in flight may still take effect after the stop: said so, never claimed left.
  const reasonFor = (id: string) =>
    now.deleteSent.has(id)
      ? `not confirmed deleted: ${stopped} before its DELETE was answered, which may still take effect`
      : `not deleted: ${stopped}`;
  const left = totals.tracked.filter((t) => !now.deleted.has(t.conversationId));
  const built = now.reporter.buildNow(
    {
      ...now.context,
      creates: { budget: now.createBudget, spent: totals.creates },
      cleanup: {
        deleted: totals.deletedByChecks + now.deleted.size,
        failed: left.map((t) => ({ conversationId: t.conversationId, reason: reasonFor(t.conversationId) })),
      },
      harnessErrors: journal.malformed > 0 ? [`${journal.malformed} journal line(s) could not be read`] : [],
    },
    { signal: now.signal, atOnce: true },
  );
  await writeReport(join(now.reportDir, "conformance.json"), built.report);
  // vitest has not written its own (it opened the file empty at the start).
  await writeFile(join(now.reportDir, "junit.xml"), junitOfReport(built.report));
  return built;
}
