/**
 * --baseline through the whole runner, against the embedded fake: a baselined failure exits 0,
 * a stale entry and an expired entry exit 1, a bad file exits 2 before anything runs.
 */

import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { parseConfig, type ConformanceInput } from "./config.ts";
import { runConformance, type RunOutcome } from "./run.ts";
import { checksDir, FAILING_MUST, readReport, tempDir } from "../test-support/runner-fixtures.ts";

interface Captured extends RunOutcome {
  output: string;
}

async function run(input: ConformanceInput, cwd: string): Promise<Captured> {
  const lines: string[] = [];
  const outcome = await runConformance(input, {
    progress: false,
    cwd,
    print: (l) => lines.push(l),
    printError: (l) => lines.push(l),
  });
  return { ...outcome, output: lines.join("\n") };
}

/** A temporary working directory holding baseline.json with these entries. */
async function withBaseline(entries: unknown): Promise<string> {
  const cwd = await tempDir("conformance-baseline-");
  await writeFile(join(cwd, "baseline.json"), JSON.stringify({ entries }));
  return cwd;
}

const DEL_2 = {
  requirement: "DEL-2",
  reason: "gateway answers 404 without a body until ticket 42",
  expires: "2999-12-31",
};

describe("a run with --baseline", () => {
  test("a listed failure is reported as baselined and the run exits 0", async () => {
    const cwd = await withBaseline([DEL_2]);
    const checks = await checksDir(FAILING_MUST);
    const result = await run(
      { checksDir: checks, reportDir: "reports", baseline: "baseline.json", only: ["DEL-2"] },
      cwd,
    );
    expect(result.exitCode, result.output).toBe(0);
    const report = await readReport(join(cwd, "reports"));
    expect(report.result).toBe("pass");
    expect(report.requirements.find((r) => r.id === "DEL-2")).toMatchObject({
      status: "fail",
      reason: "expected 204, got 404",
      baselined: true,
      baselineReason: DEL_2.reason,
      baselineExpires: "2999-12-31",
    });
    expect(report.baseline).toEqual({ file: "baseline.json", baselined: ["DEL-2"], problems: [] });
    expect(result.output).toContain("FAIL DEL-2 (MUST)");
    expect(result.output).toContain(`baselined until 2999-12-31: ${DEL_2.reason}`);
    expect(result.output).toMatch(
      /Result: PASS — \d+ pass, 1 fail, 0 warn, \d+ skip, \d+ inconclusive \(1 baselined\)/,
    );
  });

  test("a listed requirement that passes on the fake makes the run exit 1: remove it", async () => {
    const cwd = await withBaseline([DEL_2]);
    // The suite's own checks, the delete family only.
    const result = await run({ only: ["DEL-*"], reportDir: "reports", baseline: "baseline.json" }, cwd);
    expect(result.exitCode, result.output).toBe(1);
    expect(result.report?.requirements.find((r) => r.id === "DEL-2")?.status).toBe("pass");
    expect(result.report?.baseline?.problems).toEqual(["DEL-2 is listed in the baseline but passed: remove it"]);
    expect(result.output).toContain(
      "Baseline baseline.json:\n  - DEL-2 is listed in the baseline but passed: remove it",
    );
    expect(result.output).toContain("Result: FAIL");
  });

  test("an expired entry makes the run exit 1 and no longer excuses the failure", async () => {
    const cwd = await withBaseline([{ ...DEL_2, expires: "2020-01-31" }]);
    const result = await run(
      { checksDir: await checksDir(FAILING_MUST), reportDir: "reports", baseline: "baseline.json" },
      cwd,
    );
    expect(result.exitCode, result.output).toBe(1);
    expect(result.report?.requirements.find((r) => r.id === "DEL-2")?.baselined).toBeUndefined();
    expect(result.output).toContain(
      `DEL-2: the baseline entry expired on 2020-01-31 (${DEL_2.reason}): fix the failure or renew the entry`,
    );
  });

  test("an entry for an unknown requirement stops the run with exit 2 before any check", async () => {
    const cwd = await withBaseline([{ ...DEL_2, requirement: "DEL-9" }]);
    const result = await run(
      { checksDir: await checksDir(FAILING_MUST), reportDir: "reports", baseline: "baseline.json" },
      cwd,
    );
    expect(result.exitCode).toBe(2);
    expect(result.report).toBeUndefined();
    expect(result.output).toContain(
      "agent-conformance: --baseline baseline.json: DEL-9 is not a requirement of the catalog",
    );
  });

  test("a malformed file stops the run with exit 2 and says what is wrong", async () => {
    const cwd = await withBaseline([{ requirement: "DEL-2", expires: "soon" }]);
    const result = await run(
      { checksDir: await checksDir(FAILING_MUST), reportDir: "reports", baseline: "baseline.json" },
      cwd,
    );
    expect(result.exitCode).toBe(2);
    expect(result.output).toContain("--baseline baseline.json: not a baseline file");
    expect(result.output).toContain("must be a date written YYYY-MM-DD");
    expect(result.output).toMatch(/entries\[0\]\.reason/);
  });
});

describe("where the baseline comes from", () => {
  test("--baseline FILE, or CONFORMANCE_BASELINE, the flag winning", () => {
    const baselineOf = (result: ReturnType<typeof parseConfig>) =>
      result.ok ? result.config.baseline : result.errors.join("; ");
    expect(baselineOf(parseConfig(["--baseline", "known.json"], { CONFORMANCE_BASELINE: "env.json" }))).toBe(
      "known.json",
    );
    expect(baselineOf(parseConfig([], { CONFORMANCE_BASELINE: "env.json" }))).toBe("env.json");
    expect(baselineOf(parseConfig([], {}))).toBeUndefined();
  });
});
