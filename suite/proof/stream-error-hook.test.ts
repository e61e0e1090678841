/**
 * SSE-6 can only kill its mutants if an error event is provoked: against the embedded fake the
 * runner supplies the fake's error hook; without a hook the check says which setting is missing.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, onTestFinished, test } from "vitest";
import { runConformance } from "../runner/run.ts";

async function sse6(fakeOptions: Record<string, unknown>) {
  const reportDir = await mkdtemp(join(tmpdir(), "proof-sse6-"));
  onTestFinished(() => rm(reportDir, { recursive: true, force: true }));
  const { exitCode, report } = await runConformance(
    { reportDir, only: ["SSE-6"], fakeOptions },
    { progress: false, print: () => {}, printError: () => {} },
  );
  return { exitCode, requirement: report?.requirements.find((r) => r.id === "SSE-6") };
}

test("against the embedded fake SSE-6 provokes an error event and judges it", async () => {
  const { exitCode, requirement } = await sse6({});
  expect(exitCode).toBe(0);
  expect(requirement?.status).toBe("pass");
  expect((await sse6({ mutant: "events-after-error" })).requirement).toMatchObject({
    status: "fail",
    reason: expect.stringContaining("events follow the error event"),
  });
});

test("without an error hook SSE-6 is skipped, naming the setting that would provoke one", async () => {
  const { requirement } = await sse6({ faults: false });
  expect(requirement?.status).toBe("skip");
  expect(requirement?.reason).toContain("--stream-error-header (CONFORMANCE_STREAM_ERROR_HEADER)");
});
