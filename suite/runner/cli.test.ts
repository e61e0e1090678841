/**
 * The command line itself: a real process, its exit code and its output.
 * (run.test.ts covers the runner's behaviour in-process; this proves the process wiring.)
 */

import { spawn } from "node:child_process";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { closedPortUrl } from "../test-support/local-servers.ts";
import { conformanceCli } from "../test-support/conformance-cli.ts";
import { readFile } from "node:fs/promises";
import {
  checksDir,
  FAILING_MUST,
  KEY,
  PASSING_DELETE,
  QUOTING_ECHO,
  ROOT,
  tempDir,
  tinyTarget,
} from "../test-support/runner-fixtures.ts";

const SPAWN_LIMIT_MS = 60_000;

/** The environment without this process's own vitest and conformance variables. */
function cleanEnv(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (!name.startsWith("VITEST") && !name.startsWith("CONFORMANCE_") && name !== "TEST" && name !== "NODE_ENV")
      env[name] = value;
  }
  return { ...env, ...extra };
}

function runCli(args: string[], env: NodeJS.ProcessEnv = {}): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...conformanceCli(), ...args], {
      cwd: ROOT,
      env: cleanEnv(env),
      timeout: SPAWN_LIMIT_MS,
    });
    let output = "";
    child.stdout.on("data", (part: Buffer) => (output += part.toString()));
    child.stderr.on("data", (part: Buffer) => (output += part.toString()));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, output }));
  });
}

// A process is given its whole spawn limit, however busy the machine is.
describe.concurrent("agent-conformance", { timeout: SPAWN_LIMIT_MS + 5_000 }, () => {
  test("--help prints usage and exits 0", async () => {
    const run = await runCli(["--help"]);
    expect(run.code).toBe(0);
    expect(run.output).toContain("Usage: agent-conformance");
  });

  test("--help names the proxy and judge subcommands", async () => {
    const run = await runCli(["--help"]);
    expect(run.output).toContain("agent-conformance proxy --upstream URL");
    expect(run.output).toContain("agent-conformance judge FILE.har");
  });

  test("a bad flag exits 2 with a message, and still writes the reports with result error", async ({
    onTestFinished,
  }) => {
    const reports = await tempDir("conformance-reports-", onTestFinished);
    const run = await runCli(["--concurrency", "none", "--bogus", "--report-dir", reports]);
    expect(run.code).toBe(2);
    expect(run.output).toContain("--bogus");
    const report = JSON.parse(await readFile(join(reports, "conformance.json"), "utf8")) as {
      result: string;
      diagnosis: string;
    };
    expect(report).toMatchObject({ result: "error", diagnosis: expect.stringContaining("--bogus") });
    expect(await readFile(join(reports, "junit.xml"), "utf8")).toContain('errors="1"');
    expect(await readFile(join(reports, "report.html"), "utf8")).toContain("<strong>ERROR</strong>");
  });

  test("an empty CONFORMANCE_BASE_URL exits 2 naming it, instead of testing the embedded fake", async ({
    onTestFinished,
  }) => {
    const reports = await tempDir("conformance-reports-", onTestFinished);
    const run = await runCli([], {
      CONFORMANCE_BASE_URL: "",
      CONFORMANCE_API_KEY: KEY,
      CONFORMANCE_REPORT_DIR: reports,
    });
    expect(run.code).toBe(2);
    expect(run.output).toContain("CONFORMANCE_BASE_URL is set but empty");
    expect(run.output).not.toContain(KEY);
  });

  test("an unreachable target from the environment exits 2 without printing the key", async ({ onTestFinished }) => {
    const reports = await tempDir("conformance-reports-", onTestFinished);
    const run = await runCli([], {
      CONFORMANCE_BASE_URL: await closedPortUrl(),
      CONFORMANCE_API_KEY: KEY,
      CONFORMANCE_AGENT_ID: "a",
      CONFORMANCE_REPORT_DIR: reports,
    });
    expect(run.code).toBe(2);
    expect(run.output).toContain("ECONNREFUSED");
    expect(run.output).not.toContain(KEY);
    const report = await readFile(join(reports, "conformance.json"), "utf8");
    expect(JSON.parse(report)).toMatchObject({ result: "error", diagnosis: expect.stringContaining("ECONNREFUSED") });
    expect(report).not.toContain(KEY);
  });

  test("a MUST left unjudged exits 3, and the output says which", async ({ onTestFinished }) => {
    const server = await tinyTarget(onTestFinished);
    const reports = await tempDir("conformance-reports-", onTestFinished);
    const checks = await checksDir(PASSING_DELETE, onTestFinished);
    const run = await runCli([
      "--base-url",
      server.url,
      "--api-key",
      KEY,
      "--agent-id",
      "agent-x",
      "--checks-dir",
      checks,
      "--report-dir",
      reports,
      "--only",
      "DEL-2,SCOPE-1",
    ]);
    expect(run.code, run.output).toBe(3);
    expect(run.output).toContain("  SCOPE-1 skip: no check covers this requirement");
    expect(run.output).toContain("Result: INCOMPLETE");
  });

  test("a failed MUST exits 1, and no key is printed even when a check quotes the target echoing it", async ({
    onTestFinished,
  }) => {
    const server = await tinyTarget(onTestFinished);
    const reports = await tempDir("conformance-reports-", onTestFinished);
    const checks = await checksDir(FAILING_MUST + QUOTING_ECHO, onTestFinished);
    const run = await runCli([
      "--base-url",
      server.url,
      "--api-key",
      KEY,
      "--agent-id",
      "agent-x",
      "--checks-dir",
      checks,
      "--report-dir",
      reports,
    ]);
    expect(run.code, run.output).toBe(1);
    expect(run.output).toContain("FAIL DEL-2 (MUST)");
    // vitest printed the check's message, with the key scrubbed on the way out.
    expect(run.output).toContain('target said: {"items":[],"echo":"Bearer sk-r…(redacted)"}');
    expect(run.output).not.toContain(KEY);
    for (const file of ["junit.xml", "conformance.json", "report.html"]) {
      expect(await readFile(join(reports, file), "utf8")).not.toContain(KEY);
    }
  });
});
