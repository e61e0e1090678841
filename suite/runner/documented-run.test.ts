/**
 * The suite against the embedded fake, as a user runs it (the script `npm run conformance`
 * runs, in a child process, its output a CI log): the console agrees with itself (the progress
 * and the summary list the same families in the same order, in named units, the summary's line
 * for a family starting with the progress's last line for it; none of vitest's own notes), and
 * README's performance section gives what the full and the smoke profile spend (the checks exactly,
 * the interaction property at most its share).
 */

import { spawn } from "node:child_process";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { ROOT } from "../test-support/runner-fixtures.ts";
import { documentedProfileCreates } from "../test-support/documented-figures.ts";
import type { ConformanceReport } from "../report/report-types.ts";
import { conformanceCli } from "../test-support/conformance-cli.ts";

const RUN_LIMIT_MS = 180_000;

interface Run {
  code: number | null;
  stdout: string;
  report: ConformanceReport;
}

async function runSuite(args: string[], dir: string): Promise<Run> {
  const env = Object.fromEntries(
    Object.entries(process.env).filter(
      ([name]) =>
        !name.startsWith("VITEST") && !name.startsWith("CONFORMANCE_") && name !== "TEST" && name !== "NODE_ENV",
    ),
  );
  const { code, stdout } = await new Promise<{ code: number | null; stdout: string }>((resolve, reject) => {
    const child = spawn(process.execPath, [...conformanceCli(), "--report-dir", dir, ...args], {
      cwd: ROOT,
      env: { ...env, CI: "true" },
      timeout: RUN_LIMIT_MS,
    });
    let out = "";
    child.stdout.on("data", (part: Buffer) => (out += part.toString()));
    child.stderr.on("data", (part: Buffer) => (out += part.toString()));
    child.on("error", reject);
    child.on("close", (exitCode) => resolve({ code: exitCode, stdout: out }));
  });
  const report = JSON.parse(await readFile(join(dir, "conformance.json"), "utf8")) as ConformanceReport;
  return { code, stdout, report };
}

/** The progress: the lines before the summary's "Conformance of" header. */
function progressLines(stdout: string): string[] {
  const lines = stdout.split("\n");
  return lines
    .slice(
      0,
      lines.findIndex((l) => l.startsWith("Conformance of ")),
    )
    .filter((l) => l.trim() !== "");
}

/** The summary's family table: the lines after its header, up to the first blank one (the coverage line aside). */
function summaryFamilyLines(stdout: string): string[] {
  const lines = stdout.split("\n");
  const from = lines.findIndex((l) => l.startsWith("Conformance of ")) + 1;
  const to = lines.indexOf("", from);
  return lines.slice(from, to).filter((l) => !l.startsWith("interactions:"));
}

const familyOf = (line: string) => line.split(/\s+/)[0];

describe("the suite against the embedded fake, as a user runs it", { timeout: 2 * RUN_LIMIT_MS }, () => {
  let full: Run;
  let smoke: Run;
  let dir: string | undefined;
  afterAll(async () => {
    if (dir !== undefined) await rm(dir, { recursive: true, force: true });
  });
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "conformance-documented-"));
    // One after the other: each is timed by its own checks' deadlines, and the machine has two cores.
    full = await runSuite([], join(dir, "full"));
    smoke = await runSuite(["--profile", "smoke"], join(dir, "smoke"));
  }, 2 * RUN_LIMIT_MS);

  test("both pass", () => {
    expect(full.code, full.stdout).toBe(0);
    expect(smoke.code, smoke.stdout).toBe(0);
  });

  test("the progress and the summary list the same families in the same order, in named units, each summary line beginning with the progress's", () => {
    for (const run of [full, smoke]) {
      const progress = progressLines(run.stdout);
      const summary = summaryFamilyLines(run.stdout);
      expect(progress.map(familyOf)).toEqual([
        "auth",
        "responses",
        "idempotency",
        "streaming",
        "delete",
        "scope",
        "errors",
        "listing",
        "interactions",
      ]);
      expect(summary.map(familyOf)).toEqual(progress.map(familyOf));
      for (const [i, line] of progress.entries()) {
        expect(line).toMatch(/ \d+\/\d+ checks?\b/);
        expect(summary[i]?.startsWith(line), `${summary[i]} starts with ${line}`).toBe(true);
        expect(summary[i]).toMatch(/ \d+ requirements? +judged: /);
      }
    }
  });

  test("vitest's own notes (JUNIT report written to …) stay out of the console", () => {
    for (const run of [full, smoke]) expect(run.stdout).not.toMatch(/report written to/);
  });

  test("README's performance section gives what each profile spends", async () => {
    for (const [label, run] of [
      ["full run (`npm run conformance`)", full],
      ["smoke run (`--profile smoke`)", smoke],
    ] as const) {
      const documented = await documentedProfileCreates(label);
      const property = run.report.interactions?.creates ?? 0;
      expect(documented.checks + documented.property, label).toBe(documented.cap);
      expect(run.report.creates.spent - property, `${label}: the checks' creates`).toBe(documented.checks);
      expect(property, `${label}: the interaction property's creates`).toBeLessThanOrEqual(documented.property);
      expect(run.report.creates.spent, label).toBeLessThanOrEqual(documented.cap);
    }
    expect(full.stdout).toContain(`; ${full.report.creates.spent} of ${full.report.creates.budget} creates;`);
  });
});
