/**
 * Section 5: the conformance suite as a user runs it (its command line, as `npm run conformance` starts it):
 * - the full profile against the embedded fake: wall time from process start to exit, and the
 *   create operations it spent (conformance.json `creates.spent`);
 * - the smoke profile: the creates it spent;
 * - the interaction property alone (--only interactions, full and smoke): the creates it spent;
 * - the full profile against a fake paced like an LLM (first event after hundreds of ms, tens of
 *   deltas, a plain create as slow as a stream): the run's wall time over its critical path,
 *   the longest chain of requests that had to follow one another (critical-path.ts), read from
 *   the fake's own request log. 1.0 would be a suite that adds nothing to the target's time.
 */

import { spawn } from "node:child_process";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createFakeServer } from "../../fake-server/index.ts";
import type { ConformanceReport } from "../../suite/report/report-types.ts";
import { criticalPath, type Span } from "./critical-path.ts";
import { atMost, type Section } from "./figures.ts";
import type { BenchSettings } from "./settings.ts";
import { median, round } from "./stats.ts";
import { PROJECT_ROOT } from "./worker.ts";
import { WITH_TSX } from "../../suite/test-support/node-with-tsx.ts";

const CLI = join(PROJECT_ROOT, "scripts/conformance.ts");
/** A run that takes this long is stuck, not slow: it is killed and reported. */
const STUCK_MS = 600_000;
/** Enough for every request of a paced run, cleanup included. */
const REQUEST_LOG_SIZE = 20_000;

interface SuiteRun {
  wallMs: number;
  report: ConformanceReport;
}

async function runSuiteOnce(args: readonly string[] = []): Promise<SuiteRun> {
  const reportDir = await mkdtemp(join(tmpdir(), "bench-conformance-"));
  try {
    const started = performance.now();
    const { code, output } = await new Promise<{ code: number | null; output: string }>((resolve, reject) => {
      const child = spawn(process.execPath, [...WITH_TSX, CLI, "--report-dir", reportDir, ...args], {
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
    if (code !== 0)
      throw new Error(`the suite exited ${code} (${args.join(" ") || "embedded fake"}):\n${output.slice(-2_000)}`);
    const report = JSON.parse(await readFile(join(reportDir, "conformance.json"), "utf8")) as ConformanceReport;
    return { wallMs, report };
  } finally {
    await rm(reportDir, { recursive: true, force: true });
  }
}

function budgetSkipsOf(report: ConformanceReport): number {
  return report.requirements
    .flatMap((requirement) => requirement.tests)
    .filter((test) => test.status === "skip" && (test.message ?? "").startsWith("budget")).length;
}

interface PacedRun {
  checksMs: number;
  critical: { ms: number; requests: number };
  requests: number;
}

/** The full profile against an LLM-paced fake, judged as a live target, and its request log. */
async function pacedRun(): Promise<PacedRun> {
  const fake = await createFakeServer({ port: 0, variants: ["llm-pacing"], requestLogSize: REQUEST_LOG_SIZE });
  try {
    const { report } = await runSuiteOnce([
      "--base-url",
      fake.url,
      "--api-key",
      "sk-fake-a",
      "--agent-id",
      "agent-a",
      "--other-agent-id",
      "agent-b",
      "--other-api-key",
      "sk-fake-b",
      "--stream-error-header",
      "X-Fake-Fault: error-after=1",
    ]);
    const response = await fetch(`${fake.url}/__fake/requests?limit=${REQUEST_LOG_SIZE}`);
    const { requests } = (await response.json()) as { requests: { at: string; duration_ms: number; path: string }[] };
    const spans: Span[] = requests
      .filter((request) => request.path.includes("/v1/"))
      .map((request) => {
        const start = Date.parse(request.at);
        return { start, end: start + request.duration_ms };
      });
    return { checksMs: report.durationMs, critical: criticalPath(spans), requests: spans.length };
  } finally {
    await fake.close();
  }
}

export async function suiteSection(settings: BenchSettings): Promise<Section> {
  const runs: SuiteRun[] = [];
  for (let i = 0; i < settings.suite.runs; i++) runs.push(await runSuiteOnce());
  const smoke = await runSuiteOnce(["--profile", "smoke"]);
  // The interaction property by itself: what it spends when the budget leaves it all it asks for.
  const interactions = await runSuiteOnce(["--only", "interactions"]);
  const interactionsSmoke = await runSuiteOnce(["--only", "interactions", "--profile", "smoke"]);
  const paced = await pacedRun();
  const wall = median(runs.map((run) => run.wallMs));
  const spent = Math.max(...runs.map((run) => run.report.creates.spent));
  // The budget caps what a run may spend: a run that skips checks for lack of it would meet
  // the target by leaving work undone, so those skips are counted beside it.
  const budgetSkips = Math.max(...runs.map((run) => budgetSkipsOf(run.report)));
  return {
    name: "suite",
    title: "Conformance runs against the embedded fake (full, smoke) and an LLM-paced fake",
    figures: [
      {
        metric: "full run: wall time, process start to exit (median of runs)",
        value: round(wall / 1000, 2),
        unit: "s",
        target: atMost(15),
      },
      {
        metric: "full run: create operations spent (most of any run)",
        value: spent,
        unit: "creates",
        target: atMost(100),
      },
      { metric: "full run: checks skipped for lack of budget (most of any run)", value: budgetSkips, unit: "checks" },
      {
        metric: "smoke run: create operations spent",
        value: smoke.report.creates.spent,
        unit: "creates",
        target: atMost(25),
      },
      {
        metric: "interaction property alone (--only interactions): create operations spent",
        value: interactions.report.creates.spent,
        unit: "creates",
        target: atMost(24),
      },
      {
        metric: "interaction property alone, smoke profile: create operations spent",
        value: interactionsSmoke.report.creates.spent,
        unit: "creates",
        target: atMost(6),
      },
      {
        metric: "interaction property alone: wall time, process start to exit",
        value: round(interactions.wallMs / 1000, 2),
        unit: "s",
      },
      {
        metric: "LLM-paced full run: checks' wall time / critical path",
        value: round(paced.checksMs / paced.critical.ms, 3),
        unit: "ratio",
        target: atMost(1.5),
      },
      { metric: "LLM-paced full run: critical path", value: round(paced.critical.ms / 1000, 2), unit: "s" },
    ],
    details: {
      runs: runs.map((run) => ({
        wallMs: round(run.wallMs, 1),
        checksMs: round(run.report.durationMs, 1),
        counts: run.report.counts,
        creates: run.report.creates,
        result: run.report.result,
      })),
      smoke: { wallMs: round(smoke.wallMs, 1), counts: smoke.report.counts, creates: smoke.report.creates },
      interactions: {
        wallMs: round(interactions.wallMs, 1),
        counts: interactions.report.counts,
        creates: interactions.report.creates,
      },
      interactionsSmoke: {
        wallMs: round(interactionsSmoke.wallMs, 1),
        counts: interactionsSmoke.report.counts,
        creates: interactionsSmoke.report.creates,
      },
      paced: {
        checksMs: round(paced.checksMs, 1),
        criticalPathMs: round(paced.critical.ms, 1),
        requestsOnCriticalPath: paced.critical.requests,
        requests: paced.requests,
      },
    },
  };
}
