/**
 * The replay line of an interaction counterexample, run as printed: the suite started the way a
 * user starts it in this repository (`npm run conformance`), against the embedded fake with an
 * interaction mutant; the line conformance.json holds, pasted into a shell in the same folder,
 * must fail the same requirement again, and write its reports beside the first run's, never
 * over them. (The installed package's `npx agent-conformance` line: scripts/package/pack.test.ts.)
 */
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { expect, test } from "vitest";
import { runCommand } from "../../scripts/package/command.ts";
import type { ConformanceReport } from "../report/report-types.ts";
import { ROOT, tempDir } from "../test-support/runner-fixtures.ts";

/** A run of the property alone, twice over, on a loaded 2-core machine. */
const RUN_LIMIT_MS = 180_000;
const MUTANT = "metadata-outside-fingerprint";

function counterexampleOf(report: ConformanceReport) {
  const failed = report.requirements.filter((r) => r.status === "fail");
  const found = failed.flatMap((r) => r.tests).find((t) => t.counterexample !== undefined)?.counterexample;
  return { failed: failed.map((r) => r.id), found };
}

test(
  "npm run conformance with a mutant of the embedded fake: the printed replay, run verbatim, fails the same requirement into reports of its own",
  async ({ onTestFinished }) => {
    const dir = await tempDir("replay-line-", onTestFinished);
    const reports = join(dir, "reports");
    const first = await runCommand(
      "npm",
      [
        "run",
        "conformance",
        "--",
        "--fake-option",
        `mutant=${MUTANT}`,
        "--only",
        "interactions",
        "--report-dir",
        reports,
      ],
      { cwd: ROOT, timeoutMs: RUN_LIMIT_MS },
    );
    expect(first.code, first.output).toBe(1);
    const original = await readFile(join(reports, "conformance.json"), "utf8");
    const { failed, found } = counterexampleOf(JSON.parse(original) as ConformanceReport);
    if (found === undefined) throw new Error(`no counterexample in the first run:\n${first.output}`);
    const replay = found.replay;
    expect(replay).toBe(
      `npm run conformance -- --fake-option mutant=${MUTANT} --profile full --only interactions --seed ${found.seed} --path ${found.path} --report-dir ${reports}-replay-${found.seed}-${found.path}`,
    );
    // The console and the HTML report print the same line.
    expect(first.stdout).toContain(`replay: ${replay}`);
    expect(await readFile(join(reports, "report.html"), "utf8")).toContain(replay);

    const again = await runCommand("sh", ["-c", replay], { cwd: ROOT, timeoutMs: RUN_LIMIT_MS });
    expect(again.code, again.output).toBe(1);
    const replayed = JSON.parse(
      await readFile(join(`${reports}-replay-${found.seed}-${found.path}`, "conformance.json"), "utf8"),
    ) as ConformanceReport;
    const second = counterexampleOf(replayed);
    expect(second.failed).toEqual(failed);
    expect(second.found?.requirement).toBe(found.requirement);
    expect(second.found?.seed).toBe(found.seed);
    expect(second.found?.path).toBe(found.path);
    // The failing run's reports are as it left them.
    expect(await readFile(join(reports, "conformance.json"), "utf8")).toBe(original);
  },
  2 * RUN_LIMIT_MS + 10_000,
);
