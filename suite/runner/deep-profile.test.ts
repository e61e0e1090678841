/**
 * --profile deep through the whole runner: every check runs, the cap is 400 creates unless
 * --max-creates says otherwise, the checks' worker sees the profile, and a shared fixture that
 * asks for it (the interaction property) gets all that the other checks leave.
 */
import { join } from "node:path";
import { expect, test } from "vitest";
import { PROFILE_MAX_CREATES, type ConformanceInput } from "./config.ts";
import { runConformance } from "./run.ts";
import {
  checksDir,
  KEY,
  PASSING_CREATE,
  readReport,
  ROOT,
  tempDir,
  tinyTarget,
} from "../test-support/runner-fixtures.ts";

const module = (path: string) => JSON.stringify(join(ROOT, path));

/** A check that fails unless the worker runs the deep profile, and a fixture that reports the creates it was given. */
const deepChecks = (expectedRest: number) => `
import { workerState } from ${module("suite/checks/runtime/context.ts")};
import { sharedFixture } from ${module("suite/checks/runtime/shared-fixture.ts")};
const rest = sharedFixture("takes the rest", 4, async (target) => target.remainingCreates(), { minCreates: 1, smokeCreates: 2, deepCreates: Number.POSITIVE_INFINITY });
check(["DEL-2"], "the worker runs the deep profile", { creates: 0 }, async () => {
  if (workerState().settings.profile !== "deep") throw new Error("profile " + workerState().settings.profile);
});
check(["DEL-1"], "a fixture asking for everything gets what is left", { creates: 0, uses: [rest] }, async (target) => {
  const given = await target.shared(rest);
  if (given !== ${expectedRest}) throw new Error("given " + given);
});
${PASSING_CREATE}`;

async function deepRun(expectedRest: number, input: Partial<ConformanceInput>) {
  const server = await tinyTarget();
  const reports = await tempDir("conformance-reports-");
  const lines: string[] = [];
  const outcome = await runConformance(
    {
      baseUrl: server.url,
      apiKey: KEY,
      agentId: "agent-x",
      checksDir: await checksDir(deepChecks(expectedRest)),
      reportDir: reports,
      only: ["DEL-1", "DEL-2", "RESP-1"],
      profile: "deep",
      ...input,
    },
    { progress: false, print: (line) => lines.push(line), printError: (line) => lines.push(line) },
  );
  return { ...outcome, output: lines.join("\n"), report: await readReport(reports) };
}

test("deep runs every check within 400 creates, and the fixture that asks for it takes all the others leave", async () => {
  // The fixture is built before the create check (RESP-1) runs: the whole budget is left.
  const run = await deepRun(PROFILE_MAX_CREATES.deep, {});
  expect(run.exitCode, run.output).toBe(0);
  expect(run.report.creates).toEqual({ budget: 400, spent: 1 });
  expect(run.report.requirements.filter((r) => r.status === "pass").map((r) => r.id)).toEqual([
    "RESP-1",
    "DEL-1",
    "DEL-2",
  ]);
});

test("--max-creates overrides the deep cap", async () => {
  const run = await deepRun(30, { maxCreates: 30 });
  expect(run.exitCode, run.output).toBe(0);
  expect(run.report.creates.budget).toBe(30);
});
