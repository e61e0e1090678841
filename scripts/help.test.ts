/**
 * Every npm script and every command of the suite answers --help, as a user types it
 * (`npm run NAME -- --help`): its usage on stdout, exit 0, and nothing else done (no build, no
 * files written, no run). `test` is left out: it type-checks the project before vitest prints
 * its own help, and that is vitest's and tsc's business.
 */

import { spawn } from "node:child_process";
import { readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { ROOT } from "../suite/test-support/runner-fixtures.ts";

const SCRIPTS = Object.keys(
  (JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { scripts: Record<string, string> }).scripts,
).filter((name) => name !== "test");
const SUBCOMMANDS = ["proxy", "judge", "merge"];
const LIMIT_MS = 60_000;

function npmRun(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const env = Object.fromEntries(
      Object.entries(process.env).filter(([name]) => !name.startsWith("VITEST") && !name.startsWith("CONFORMANCE_")),
    );
    const child = spawn("npm", ["run", "--silent", ...args], { cwd: ROOT, env, timeout: LIMIT_MS });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (part: Buffer) => (stdout += part.toString()));
    child.stderr.on("data", (part: Buffer) => (stderr += part.toString()));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}

/** What a script would change if it ran instead of printing its help. */
const touched = () => ({
  openapi: statSync(join(ROOT, "openapi/openapi.json")).mtimeMs,
  dist: (() => {
    try {
      return statSync(join(ROOT, "dist")).mtimeMs;
    } catch {
      return undefined;
    }
  })(),
});

describe("--help", { timeout: LIMIT_MS + 5_000 }, () => {
  test("package.json has the scripts this test expects to find", () => {
    expect(SCRIPTS).toEqual(
      expect.arrayContaining([
        "typecheck",
        "fake",
        "conformance",
        "openapi",
        "bench",
        "verify-suite",
        "interactions",
        "build",
        "prepack",
      ]),
    );
  });

  test.each(SCRIPTS)("npm run %s -- --help prints its usage and exits 0, doing nothing else", async (name) => {
    const before = touched();
    const run = await npmRun([name, "--", "--help"]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(name === "typecheck" ? /The TypeScript Compiler/ : /^Usage: /m);
    expect(touched()).toEqual(before);
  });

  test.each(SUBCOMMANDS)("npm run conformance -- %s --help prints its usage and exits 0", async (subcommand) => {
    const run = await npmRun(["conformance", "--", subcommand, "--help"]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(new RegExp(`^Usage: agent-conformance ${subcommand}\\b`, "m"));
  });
});
