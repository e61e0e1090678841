/**
 * What a run leaves out by the user's choice, through the whole runner against a hand-built
 * target: --exclude, --profile smoke and --rerun-failed. What the user left out is an excluded
 * skip, never a reason for exit 3.
 */

import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { PROFILE_MAX_CREATES, type ConformanceInput } from "./config.ts";
import { runConformance, type RunOutcome } from "./run.ts";
import {
  checksDir,
  FAILING_MUST,
  FAILING_SHOULD,
  KEY,
  PASSING_CREATE,
  PASSING_DELETE,
  PASSING_MUST,
  readReport,
  tempDir,
  tinyTarget,
} from "../test-support/runner-fixtures.ts";

interface Captured extends RunOutcome {
  output: string;
}

async function run(input: ConformanceInput, cwd?: string): Promise<Captured> {
  const lines: string[] = [];
  const outcome = await runConformance(input, {
    progress: false,
    cwd,
    print: (l) => lines.push(l),
    printError: (l) => lines.push(l),
  });
  return { ...outcome, output: lines.join("\n") };
}

const live = (url: string) => ({ baseUrl: url, apiKey: KEY, agentId: "agent-x" });

/** A delete check in the smoke profile, and a create check that is not. */
const SMOKE_AND_FULL = PASSING_DELETE.replace("{ creates: 0 }", "{ creates: 0, smoke: true }") + PASSING_CREATE;

/** RESP-1 passes, DEL-2 fails (a MUST), AUTH-2 warns (a SHOULD). */
const MIXED = PASSING_CREATE + FAILING_MUST + FAILING_SHOULD;

describe("--exclude", () => {
  test("a requirement it matches is an excluded skip, and does not make the run incomplete", async () => {
    const server = await tinyTarget();
    const reports = await tempDir("conformance-reports-");
    // SCOPE-3 (no other key) and LIST-5 (over budget) would skip: exit 3 unless excluded.
    const result = await run({
      ...live(server.url),
      checksDir: await checksDir(PASSING_MUST),
      reportDir: reports,
      only: ["DEL-2", "RESP-1", "SCOPE-3", "LIST-5"],
      exclude: ["SCOPE-*", "LIST-5"],
    });
    expect(result.exitCode, result.output).toBe(0);
    const report = await readReport(reports);
    for (const id of ["SCOPE-3", "LIST-5"]) {
      expect(report.requirements.find((r) => r.id === id)).toMatchObject({
        status: "skip",
        reason: "excluded by --exclude",
        excluded: true,
        tests: [],
      });
    }
    expect(report.incomplete).toEqual([]);
    expect(result.output).not.toContain("Not judged");
    expect(result.output).toMatch(/Result: PASS — 2 pass/);
  });
});

describe("--profile smoke", () => {
  test("runs the checks marked smoke; the others are excluded skips, not a reason for exit 3", async () => {
    const server = await tinyTarget();
    const reports = await tempDir("conformance-reports-");
    const result = await run({
      ...live(server.url),
      checksDir: await checksDir(SMOKE_AND_FULL),
      reportDir: reports,
      profile: "smoke",
      only: ["DEL-2", "RESP-1"],
    });
    expect(result.exitCode, result.output).toBe(0);
    const report = await readReport(reports);
    expect(report.requirements.find((r) => r.id === "DEL-2")?.status).toBe("pass");
    expect(report.requirements.find((r) => r.id === "RESP-1")).toMatchObject({
      status: "skip",
      reason: "not in the smoke profile",
      excluded: true,
    });
    expect(report.incomplete).toEqual([]);
    expect(report.creates).toEqual({ budget: PROFILE_MAX_CREATES.smoke, spent: 0 });
    expect(server.requests.filter((r) => r.method === "POST")).toEqual([]);
  });

  test("the full profile runs both", async () => {
    const server = await tinyTarget();
    const result = await run({
      ...live(server.url),
      checksDir: await checksDir(SMOKE_AND_FULL),
      reportDir: await tempDir("conformance-reports-"),
      only: ["DEL-2", "RESP-1"],
    });
    expect(result.exitCode, result.output).toBe(0);
    expect(result.report?.requirements.filter((r) => r.status === "pass").map((r) => r.id)).toEqual([
      "RESP-1",
      "DEL-2",
    ]);
  });
});

describe("--rerun-failed", () => {
  test("runs only what failed, warned or was inconclusive there; within --only when both are given", async () => {
    const server = await tinyTarget();
    const checks = await checksDir(MIXED);
    const cwd = await tempDir("conformance-rerun-");
    const first = await run(
      { ...live(server.url), checksDir: checks, reportDir: "first", only: ["RESP-1", "DEL-2", "AUTH-2"] },
      cwd,
    );
    expect(first.exitCode, first.output).toBe(1);
    const requestsBefore = server.requests.length;

    const rerun = await run(
      { ...live(server.url), checksDir: checks, reportDir: "rerun", rerunFailed: "first/conformance.json" },
      cwd,
    );
    expect(rerun.exitCode, rerun.output).toBe(1);
    const report = await readReport(join(cwd, "rerun"));
    const statusOf = (id: string) => report.requirements.find((r) => r.id === id);
    expect(statusOf("DEL-2")?.status).toBe("fail");
    expect(statusOf("AUTH-2")?.status).toBe("warn");
    // RESP-1 passed the first time: not selected, so its create is not made again.
    expect(statusOf("RESP-1")).toMatchObject({ status: "skip", excluded: true, tests: [] });
    expect(server.requests.slice(requestsBefore).filter((r) => r.method === "POST")).toEqual([]);
    // What the earlier run did not judge is not selected either: not incomplete.
    expect(report.incomplete).toEqual([]);

    const narrowed = await run(
      {
        ...live(server.url),
        checksDir: checks,
        reportDir: "narrowed",
        rerunFailed: "first/conformance.json",
        only: ["AUTH-*"],
      },
      cwd,
    );
    expect(narrowed.exitCode, narrowed.output).toBe(0);
    expect(narrowed.report?.requirements.filter((r) => r.excluded !== true).map((r) => [r.id, r.status])).toEqual([
      ["AUTH-2", "warn"],
    ]);
  });

  test("a MUST the earlier run skipped for a missing setting is judged once the setting is given", async () => {
    const server = await tinyTarget();
    const cwd = await tempDir("conformance-rerun-");
    const checks = await checksDir(PASSING_DELETE);
    const first = await run(
      { ...live(server.url), checksDir: checks, reportDir: "first", only: ["DEL-2", "SCOPE-1"] },
      cwd,
    );
    expect(first.exitCode, first.output).toBe(3);
    const rerun = await run(
      { ...live(server.url), checksDir: checks, reportDir: "rerun", rerunFailed: "first/conformance.json" },
      cwd,
    );
    expect(rerun.output).not.toContain("nothing to rerun");
    const report = await readReport(join(cwd, "rerun"));
    // SCOPE-1 was selected again (no check here covers it, so it stays unjudged); DEL-2 passed and is left out.
    expect(report.requirements.find((r) => r.id === "SCOPE-1")).toMatchObject({
      status: "skip",
      reason: "no check covers this requirement",
    });
    expect(report.requirements.find((r) => r.id === "DEL-2")).toMatchObject({ excluded: true });
    expect(rerun.exitCode, rerun.output).toBe(2);
  });

  test("when nothing failed, warned or was inconclusive it says so and exits 0 without running", async () => {
    const server = await tinyTarget();
    const cwd = await tempDir("conformance-rerun-");
    await writeFile(
      join(cwd, "passed.json"),
      JSON.stringify({
        requirements: [
          { id: "DEL-2", status: "pass" },
          { id: "SSE-1", status: "skip", excluded: true },
        ],
      }),
    );
    const result = await run(
      { ...live(server.url), checksDir: await checksDir(PASSING_DELETE), rerunFailed: "passed.json" },
      cwd,
    );
    expect(result.exitCode).toBe(0);
    expect(result.report).toBeUndefined();
    expect(result.output).toBe(
      "agent-conformance: nothing to rerun: no requirement failed, warned or was inconclusive, and no MUST was left unjudged, in passed.json",
    );
    expect(server.requests).toEqual([]);
  });

  test.each([
    ["missing", undefined, "--rerun-failed earlier.json: cannot be read: no such file"],
    ["not a report", JSON.stringify({ entries: [] }), "--rerun-failed earlier.json: not a conformance.json"],
  ])("a %s file is a usage error: exit 2 naming the flag, before anything runs", async (_what, content, message) => {
    const server = await tinyTarget();
    const cwd = await tempDir("conformance-rerun-");
    if (content !== undefined) await writeFile(join(cwd, "earlier.json"), content);
    const result = await run(
      { ...live(server.url), checksDir: await checksDir(PASSING_DELETE), rerunFailed: "earlier.json" },
      cwd,
    );
    expect(result.exitCode).toBe(2);
    expect(result.report).toBeUndefined();
    expect(result.output).toContain(`agent-conformance: ${message}`);
    expect(server.requests).toEqual([]);
  });
});
