/**
 * What the interaction property explored reaches every report: from the shared fixture's value,
 * through the check's task meta and the conformance reporter, to conformance.json's top-level
 * `interactions` and the console's one coverage line. A hand-made summary stands in for the
 * property here.
 */
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { coverageLine } from "../interactions/coverage.ts";
import { buildReport, type TestOutcome } from "./build-report.ts";
import { summaryLines } from "./console-summary.ts";
import { runConformance } from "./run.ts";
import {
  checksDir,
  KEY,
  readReport,
  reportContext,
  ROOT,
  tempDir,
  tinyTarget,
} from "../test-support/runner-fixtures.ts";
import { sampleInteractionsSummary } from "../test-support/sample-interactions.ts";

const passed = (name: string, ids: string[], extra: Partial<TestOutcome> = {}): TestOutcome => ({
  name,
  requirements: ids,
  file: "interactions",
  state: "passed",
  errors: [],
  durationMs: 1,
  ...extra,
});

describe("the report builder", () => {
  test("puts the summary the property's check carried at the top level, as it came", () => {
    const summary = sampleInteractionsSummary();
    const { report } = buildReport(
      [passed("[DEL-1] a", ["DEL-1"], { check: { interactions: summary } }), passed("[DEL-3] b", ["DEL-3"])],
      reportContext(),
    );
    expect(report.interactions).toEqual(summary);
  });

  test("leaves it out when the property did not run", () => {
    const { report } = buildReport([passed("[DEL-1] a", ["DEL-1"])], reportContext());
    expect("interactions" in report).toBe(false);
  });
});

describe("the console", () => {
  test("prints the coverage line once, after the families", () => {
    const summary = sampleInteractionsSummary();
    const { report } = buildReport(
      [passed("[DEL-1] a", ["DEL-1"], { check: { interactions: summary } })],
      reportContext(),
    );
    const lines = summaryLines(report, "reports");
    expect(lines.filter((line) => line === coverageLine(summary))).toHaveLength(1);
    expect(lines.indexOf(coverageLine(summary))).toBeGreaterThan(lines.findIndex((line) => line.startsWith("delete")));
    expect(coverageLine(summary)).toBe(
      "interactions: 3 sequences, 412 operations, 24 creates; transitions 3/5, orderings 1/2, inputs 2/2, client 1/1",
    );
  });

  test("prints none without the property", () => {
    const { report } = buildReport([passed("[DEL-1] a", ["DEL-1"])], reportContext());
    expect(summaryLines(report, "reports").filter((line) => line.startsWith("interactions:"))).toEqual([]);
  });
});

const SHARED_FIXTURE = JSON.stringify(join(ROOT, "suite/checks/runtime/shared-fixture.ts"));

/** A shared fixture whose value is `value`, read by two checks as the property's run is. */
const fixtureChecks = (value: string) => `
import { sharedFixture } from ${SHARED_FIXTURE};
const run = sharedFixture("stand-in property", 0, async () => (${value}));
check(["DEL-2"], "reads the stand-in first", { creates: 0, uses: [run] }, async (target) => { await target.shared(run); });
check(["DEL-1"], "reads it again", { creates: 0, uses: [run] }, async (target) => { await target.shared(run); });
`;

describe("through the runner", () => {
  test("a shared fixture's summary leaves the worker and lands in conformance.json and on the console", async () => {
    const server = await tinyTarget();
    const reports = await tempDir("conformance-reports-");
    const summary = sampleInteractionsSummary();
    const lines: string[] = [];
    const outcome = await runConformance(
      {
        baseUrl: server.url,
        apiKey: KEY,
        agentId: "agent-x",
        checksDir: await checksDir(fixtureChecks(`{ runs: 3, summary: ${JSON.stringify(summary)} }`)),
        reportDir: reports,
        only: ["DEL-1", "DEL-2"],
      },
      { progress: false, print: (line) => lines.push(line), printError: (line) => lines.push(line) },
    );
    expect(outcome.exitCode, lines.join("\n")).toBe(0);
    expect((await readReport(reports)).interactions).toEqual(summary);
    expect(lines.filter((line) => line === coverageLine(summary))).toHaveLength(1);
  });

  test("a fixture whose value carries no summary leaves none", async () => {
    const server = await tinyTarget();
    const reports = await tempDir("conformance-reports-");
    const outcome = await runConformance(
      {
        baseUrl: server.url,
        apiKey: KEY,
        agentId: "agent-x",
        checksDir: await checksDir(fixtureChecks("{ summary: 'not one' }")),
        reportDir: reports,
        only: ["DEL-1", "DEL-2"],
      },
      { progress: false, print: () => {}, printError: () => {} },
    );
    expect(outcome.exitCode).toBe(0);
    expect("interactions" in (await readReport(reports))).toBe(false);
  });
});
