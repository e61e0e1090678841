/**
 * The whole conformance suite, from its command line, against servers that misbehave:
 * every run ends by itself within its configured timeouts, with the verdict the target
 * earns (1: it does not conform, 2: the run could not start) and never with the API key
 * in its output or its reports.
 */

import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import type { ConformanceReport } from "../report/report-types.ts";
import { HOSTILE_TARGETS } from "./hostile-targets.ts";
import { runConformanceCli } from "./run-cli.ts";

const KEY = "sk-hostile-0f9e8d7c6b5a";
const CHECK_TIMEOUT_MS = 5_000;
// Small, but with room for a busy machine: a sane answer must never miss them, or the verdict
// would say "timeout" where the target sent garbage.
const LIMITS = [
  "--request-timeout",
  "2000",
  "--first-event-timeout",
  "2000",
  "--idle-timeout",
  "1000",
  "--stream-timeout",
  "1500",
  "--check-timeout",
  String(CHECK_TIMEOUT_MS),
  "--max-response-bytes",
  "65536",
  "--max-stream-bytes",
  "262144",
  "--runs",
  "2",
];
/**
 * What the configured timeouts allow a whole run at most: every check (fewer than 60) taking
 * its full deadline one after another, plus start-up. A run still going then has hung; it is
 * killed and the test fails on its exit code. (Runs take well under 30 s.)
 */
const HANG_LIMIT_MS = 60 * CHECK_TIMEOUT_MS + 30_000;
/** The test itself outlives the run's limit, so that a hung run fails with exit null, not a vitest timeout. */
const TEST_TIMEOUT_MS = HANG_LIMIT_MS + 30_000;

async function filesIn(dir: string): Promise<{ name: string; text: string }[]> {
  const names = await readdir(dir);
  return Promise.all(names.map(async (name) => ({ name, text: await readFile(join(dir, name), "utf8") })));
}

describe.concurrent("the conformance command against a hostile target", () => {
  test.for(HOSTILE_TARGETS)(
    "$name: exit $exitCode",
    { timeout: TEST_TIMEOUT_MS },
    async (target, { onTestFinished }) => {
      const { url } = await target.start(onTestFinished);
      const reportDir = await mkdtemp(join(tmpdir(), "conformance-hostile-"));
      onTestFinished(() => rm(reportDir, { recursive: true, force: true }));

      const run = await runConformanceCli(
        [
          "--base-url",
          url,
          "--api-key",
          KEY,
          "--agent-id",
          "agent-x",
          "--report-dir",
          reportDir,
          ...LIMITS,
          ...(target.flags ?? []),
        ],
        HANG_LIMIT_MS,
      );
      const transcript = `exit ${run.code}\n--- stdout\n${run.stdout}\n--- stderr\n${run.stderr}`;
      expect(run.code, transcript).toBe(target.exitCode);
      expect(run.stdout).not.toContain(KEY);
      expect(run.stderr).not.toContain(KEY);
      const files = await filesIn(reportDir);
      for (const file of files) expect(file.text, file.name).not.toContain(KEY);

      if (target.exitCode === 2) {
        // Stopped before any check: one line on stderr saying why, and reports that say the same.
        expect(run.stderr.trimEnd().split("\n")).toEqual([expect.stringMatching(/^agent-conformance: /)]);
        expect(run.stderr).toMatch(target.evidence);
        const stopped = JSON.parse(
          files.find((file) => file.name === "conformance.json")?.text ?? "null",
        ) as ConformanceReport;
        expect(stopped.result).toBe("error");
        expect(stopped.diagnosis).toMatch(target.evidence);
        expect(stopped.requirements).toEqual([]);
        return;
      }
      const report = JSON.parse(
        files.find((file) => file.name === "conformance.json")?.text ?? "null",
      ) as ConformanceReport;
      expect(report.harnessErrors, "a misbehaving target is a conformance failure, not a harness error").toEqual([]);
      // Exit 1: a MUST failed. Exit 3: nothing failed, but the target never let some MUST finish.
      expect(report.result).toBe(target.exitCode === 1 ? "fail" : "incomplete");
      expect(
        report.requirements.some(
          (r) => r.level === "MUST" && r.status === (target.exitCode === 1 ? "fail" : "inconclusive"),
        ),
      ).toBe(true);
      // The hostility shows where it struck: a failure, or a check the target never let finish.
      const reasons = report.requirements
        .filter((r) => r.status === "fail" || r.status === "inconclusive")
        .map((r) => r.reason ?? "");
      expect(
        reasons.some((reason) => target.evidence.test(reason)),
        reasons.join("\n"),
      ).toBe(true);
    },
  );
});
