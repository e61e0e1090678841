/**
 * The reports of a run that stopped before any check (exit 2: a usage or configuration error,
 * a setup the preflight diagnosed, an unreachable target): conformance.json, junit.xml and
 * report.html with result "error" and the diagnosis, so a CI step that uploads the reports
 * finds why the gate is red instead of nothing. The same for the other ways a run ends before
 * its checks: stopped by a signal (result "incomplete"), or nothing to rerun (result "pass").
 */

import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { ConformanceReport, InterruptedReport } from "../report/report-types.ts";
import { junitOfReport } from "./report-junit.ts";
import { writeReport } from "./conformance-reporter.ts";
import { writeErrorJunit } from "./junit-verdicts.ts";
import type { Shard } from "./shards.ts";
import { suiteVersion } from "./suite-version.ts";
import { writeHtmlReport } from "../report/html.ts";

export interface ErrorReportFacts {
  /** The diagnosis lines, already redacted. */
  diagnosis: readonly string[];
  /** Redacted description of the target, or what is known of it. */
  target: string;
  runId?: string | undefined;
  seed?: number | undefined;
  strict?: boolean | undefined;
  creates?: ConformanceReport["creates"] | undefined;
  /** --shard, once the flags were read: `merge` then says which shard stopped. */
  shard?: Shard | undefined;
  /** Default "error"; "incomplete" for a run a signal stopped, "pass" when there was nothing to run. */
  result?: ConformanceReport["result"] | undefined;
  interrupted?: InterruptedReport | undefined;
}

export function errorReport(facts: ErrorReportFacts, now = new Date()): ConformanceReport {
  return {
    target: facts.target,
    suite: { ...suiteVersion() },
    result: facts.result ?? "error",
    diagnosis: facts.diagnosis.join("\n"),
    strict: facts.strict ?? false,
    runId: facts.runId ?? "",
    seed: facts.seed ?? 0,
    startedAt: now.toISOString(),
    durationMs: 0,
    counts: { pass: 0, fail: 0, warn: 0, skip: 0, inconclusive: 0, tests: 0 },
    incomplete: [],
    creates: facts.creates ?? { budget: 0, spent: 0 },
    cleanup: { deleted: 0, failed: [] },
    harnessErrors: [],
    ...(facts.shard === undefined ? {} : { shard: { index: facts.shard.index, count: facts.shard.count } }),
    ...(facts.interrupted === undefined ? {} : { interrupted: facts.interrupted }),
    requirements: [],
  };
}

/** Writes the three reports into `dir`; returns why one could not be written, if so. */
export async function writeErrorReports(dir: string, report: ConformanceReport): Promise<string | undefined> {
  try {
    await writeReport(join(dir, "conformance.json"), report);
    if (report.result === "error")
      await writeErrorJunit(
        join(dir, "junit.xml"),
        report.diagnosis ?? "the run stopped before any check",
        report.target,
      );
    else await writeFile(join(dir, "junit.xml"), junitOfReport(report));
    await writeHtmlReport(report, dir);
    return undefined;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}
