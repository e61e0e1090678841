/**
 * Section 5: the full conformance suite against the embedded fake, as a user runs it
 * (`npm run conformance`, here through tsx directly): wall time from process start to exit,
 * and the create operations the run spent (conformance.json `creates.spent`).
 */

import { spawn } from "node:child_process";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ConformanceReport } from "../../suite/harness/report-types.ts";
import { atMost, type Section } from "./figures.ts";
import type { BenchSettings } from "./settings.ts";
import { median, round } from "./stats.ts";
import { PROJECT_ROOT } from "./worker.ts";

const TSX = join(PROJECT_ROOT, "node_modules/tsx/dist/cli.mjs");
const CLI = join(PROJECT_ROOT, "scripts/conformance.ts");
/** A run that takes this long is stuck, not slow: it is killed and reported. */
const STUCK_MS = 180_000;

interface SuiteRun {
  wallMs: number;
  exitCode: number | null;
  report: ConformanceReport;
}

async function runSuiteOnce(): Promise<SuiteRun> {
  const reportDir = await mkdtemp(join(tmpdir(), "bench-conformance-"));
  try {
    const started = performance.now();
    const { code, output } = await new Promise<{ code: number | null; output: string }>((resolve, reject) => {
      const child = spawn(process.execPath, [TSX, CLI, "--report-dir", reportDir], {
        cwd: PROJECT_ROOT,
        timeout: STUCK_MS,
        stdio: ["ignore", "pipe", "pipe"],
      });
      let text = "";
      child.stdout.on("data", (chunk: Buffer) => (text += chunk.toString()));
      child.stderr.on("data", (chunk: Buffer) => (text += chunk.toString()));
      child.on("error", reject);
      child.on("close", (exitCode) => resolve({ code: exitCode, output: text }));
    });
    const wallMs = performance.now() - started;
    if (code !== 0) throw new Error(`the suite exited ${code} against the embedded fake:\n${output.slice(-2_000)}`);
    const report = JSON.parse(await readFile(join(reportDir, "conformance.json"), "utf8")) as ConformanceReport;
    return { wallMs, exitCode: code, report };
  } finally {
    await rm(reportDir, { recursive: true, force: true });
  }
}

function budgetSkipsOf(report: ConformanceReport): number {
  return report.requirements
    .flatMap((requirement) => requirement.tests)
    .filter((test) => test.status === "skip" && (test.message ?? "").startsWith("budget")).length;
}

export async function suiteSection(settings: BenchSettings): Promise<Section> {
  const runs: SuiteRun[] = [];
  for (let i = 0; i < settings.suite.runs; i++) runs.push(await runSuiteOnce());
  const wall = median(runs.map((run) => run.wallMs));
  const spent = Math.max(...runs.map((run) => run.report.creates.spent));
  // The budget caps what a run may spend: a run that skips checks for lack of it would meet
  // the target by leaving work undone, so those skips are counted beside it.
  const budgetSkips = Math.max(...runs.map((run) => budgetSkipsOf(run.report)));
  return {
    name: "suite",
    title: "Full conformance run against the embedded fake",
    figures: [
      { metric: "wall time, process start to exit (median of runs)", value: round(wall / 1000, 2), unit: "s", target: atMost(15) },
      { metric: "create operations spent (most of any run)", value: spent, unit: "creates", target: atMost(150) },
      { metric: "checks skipped for lack of budget (most of any run)", value: budgetSkips, unit: "checks" },
      { metric: "checks' own duration (median of runs)", value: round(median(runs.map((run) => run.report.durationMs)) / 1000, 2), unit: "s" },
    ],
    details: {
      runs: runs.map((run) => ({
        wallMs: round(run.wallMs, 1),
        checksMs: round(run.report.durationMs, 1),
        counts: run.report.counts,
        creates: run.report.creates,
        result: run.report.result,
      })),
    },
  };
}
