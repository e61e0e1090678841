/**
 * Every way a command that takes --report-dir can end writes the three reports there, as the
 * user runs it (a real process): the ways that stop before any check or judgement included,
 * so a CI step that uploads the reports always finds them, and in them why the job ended.
 */
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { conformanceCli } from "../test-support/conformance-cli.ts";
import { describe, expect, test } from "vitest";
import { runCommand } from "../../scripts/package/command.ts";
import { tempDir } from "../test-support/runner-fixtures.ts";

const LIMIT_MS = 60_000;
const conformance = (args: readonly string[], cwd: string) =>
  runCommand(process.execPath, [...conformanceCli(), ...args], {
    cwd,
    timeoutMs: LIMIT_MS,
  });

async function threeReports(dir: string): Promise<{ result: string; diagnosis?: string }> {
  const report = JSON.parse(await readFile(join(dir, "conformance.json"), "utf8")) as {
    result: string;
    diagnosis?: string;
  };
  expect(await readFile(join(dir, "junit.xml"), "utf8")).toMatch(/<testsuites[\s\S]*<\/testsuites>/);
  expect(await readFile(join(dir, "report.html"), "utf8")).toContain(`<strong>${report.result.toUpperCase()}</strong>`);
  return report;
}

// A test runs up to two commands one after the other, each with its whole limit on a busy machine.
describe.concurrent("every exit path writes the three reports", { timeout: 2 * LIMIT_MS + 5_000 }, () => {
  test("--rerun-failed with nothing to rerun: exit 0, result pass, saying there was nothing to rerun", async ({
    onTestFinished,
  }) => {
    const dir = await tempDir("exit-paths-", onTestFinished);
    const previous = join(dir, "previous.json");
    await writeFile(
      previous,
      JSON.stringify({ result: "pass", requirements: [{ id: "SSE-1", level: "MUST", status: "pass", tests: [] }] }),
    );
    const run = await conformance(["--rerun-failed", previous, "--report-dir", join(dir, "reports")], dir);
    expect(run.code, run.output).toBe(0);
    expect(run.stdout).toContain("nothing to rerun");
    const report = await threeReports(join(dir, "reports"));
    expect(report).toMatchObject({
      result: "pass",
      diagnosis: expect.stringContaining("nothing to rerun: no requirement failed"),
    });
  });

  test("judge of a file that does not exist: exit 2, result error naming the file", async ({ onTestFinished }) => {
    const dir = await tempDir("exit-paths-", onTestFinished);
    const run = await conformance(["judge", join(dir, "missing.har"), "--report-dir", join(dir, "reports")], dir);
    expect(run.code, run.output).toBe(2);
    const report = await threeReports(join(dir, "reports"));
    expect(report).toMatchObject({ result: "error", diagnosis: expect.stringContaining("missing.har cannot be read") });
  });

  test("judge without a file, and with a flag's value refused: exit 2, result error", async ({ onTestFinished }) => {
    const dir = await tempDir("exit-paths-", onTestFinished);
    const none = await conformance(["judge", "--report-dir", join(dir, "none")], dir);
    expect(none.code, none.output).toBe(2);
    expect(await threeReports(join(dir, "none"))).toMatchObject({
      result: "error",
      diagnosis: expect.stringContaining("name at least one HAR file"),
    });
    const refused = await conformance(
      ["judge", "x.har", "--gate", "nobody", "--report-dir", join(dir, "refused")],
      dir,
    );
    expect(refused.code, refused.output).toBe(2);
    expect(await threeReports(join(dir, "refused"))).toMatchObject({
      result: "error",
      diagnosis: expect.stringContaining("--gate"),
    });
  });

  test("merge without a shard folder: exit 2, result error", async ({ onTestFinished }) => {
    const dir = await tempDir("exit-paths-", onTestFinished);
    const run = await conformance(["merge", "--report-dir", join(dir, "reports")], dir);
    expect(run.code, run.output).toBe(2);
    expect(await threeReports(join(dir, "reports"))).toMatchObject({
      result: "error",
      diagnosis: expect.stringContaining("name the folder of every shard's reports"),
    });
  });

  test("proxy with a port out of range, and with a HAR file it cannot write: exit 2, result error", async ({
    onTestFinished,
  }) => {
    const dir = await tempDir("exit-paths-", onTestFinished);
    const badPort = await conformance(
      ["proxy", "--upstream", "http://127.0.0.1:9", "--port", "70000", "--report-dir", join(dir, "port")],
      dir,
    );
    expect(badPort.code, badPort.output).toBe(2);
    expect(await threeReports(join(dir, "port"))).toMatchObject({
      result: "error",
      diagnosis: expect.stringContaining("--port"),
    });
    await mkdir(join(dir, "a-folder"));
    const badHar = await conformance(
      ["proxy", "--upstream", "http://127.0.0.1:9", "--har", join(dir, "a-folder"), "--report-dir", join(dir, "har")],
      dir,
    );
    expect(badHar.code, badHar.output).toBe(2);
    expect(await threeReports(join(dir, "har"))).toMatchObject({
      result: "error",
      diagnosis: expect.stringContaining("cannot write --har"),
    });
  });
});
