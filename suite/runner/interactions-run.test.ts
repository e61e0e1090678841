/**
 * The interaction property run by the conformance runner against the embedded fake
 * (`--only interactions`): conformance.json carries what it explored, and the console its line.
 */
import { expect, test } from "vitest";
import { COVERAGE_DIMENSIONS, coverageLine } from "../interactions/coverage.ts";
import { runConformance } from "./run.ts";
import { readReport, tempDir } from "../test-support/runner-fixtures.ts";

test(
  "a run of the property reports its coverage in conformance.json and on the console",
  { timeout: 120_000 },
  async () => {
    const reports = await tempDir("conformance-reports-");
    const lines: string[] = [];
    const outcome = await runConformance(
      { only: ["interactions"], reportDir: reports },
      { progress: false, print: (l) => lines.push(l), printError: (l) => lines.push(l) },
    );
    expect(outcome.exitCode, lines.join("\n")).toBe(0);
    const { interactions } = await readReport(reports);
    expect(interactions, lines.join("\n")).toBeDefined();
    if (interactions === undefined) return;
    expect(interactions.sequences).toBeGreaterThan(0);
    expect(interactions.operations).toBeGreaterThan(0);
    for (const dimension of COVERAGE_DIMENSIONS) {
      const { covered, total, missing } = interactions.coverage[dimension];
      expect(total, dimension).toBeGreaterThan(0);
      expect(covered + missing.length, dimension).toBe(total);
    }
    expect(lines.filter((line) => line === coverageLine(interactions))).toHaveLength(1);
  },
);
