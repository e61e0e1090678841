/**
 * `agent-conformance merge` over the reports of real shard runs of the embedded fake (a small
 * selection, to stay fast): one passing report of the whole; shards that are not one run are
 * refused with exit 2 and the reason, through the command line as a user runs it.
 */
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { cp, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { beforeAll, describe, expect, test } from "vitest";
import type { ConformanceReport } from "../report/report-types.ts";
import { runMergeCommand } from "./merge-command.ts";
import { runConformance } from "./run.ts";
import { readReport, ROOT, tempDir } from "../test-support/runner-fixtures.ts";
import { conformanceCli } from "../test-support/conformance-cli.ts";

/** Requirements no interaction check judges: the property stays out of these runs. */
const ONLY = ["LIST-6", "LIST-9", "DEL-2"];

let base: string;
let shards: string[];

async function shardRun(index: number, count: number, dir: string): Promise<number> {
  const lines: string[] = [];
  const { exitCode } = await runConformance(
    { only: ONLY, shard: `${index}/${count}`, seed: 40, reportDir: dir },
    { progress: false, print: (l) => lines.push(l), printError: (l) => lines.push(l) },
  );
  if (exitCode !== 0) throw new Error(`shard ${index}/${count} exited ${exitCode}:\n${lines.join("\n")}`);
  return exitCode;
}

async function merge(args: string[]): Promise<{ code: number; output: string }> {
  const lines: string[] = [];
  const code = await runMergeCommand(args, { print: (l) => lines.push(l), printError: (l) => lines.push(l) });
  return { code, output: lines.join("\n") };
}

function cli(args: string[]): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const env = Object.fromEntries(
      Object.entries(process.env).filter(([name]) => !name.startsWith("VITEST") && !name.startsWith("CONFORMANCE_")),
    );
    const child = spawn(process.execPath, [...conformanceCli(), ...args], { cwd: ROOT, env, timeout: 60_000 });
    let output = "";
    child.stdout.on("data", (part: Buffer) => (output += part.toString()));
    child.stderr.on("data", (part: Buffer) => (output += part.toString()));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, output }));
  });
}

/** A copy of a shard's folder whose conformance.json is changed by `edit`. */
async function doctored(dir: string, edit: (report: ConformanceReport) => ConformanceReport): Promise<string> {
  const copy = await tempDir("conformance-shard-copy-", beforeAllCleanup);
  await cp(dir, copy, { recursive: true });
  await writeFile(join(copy, "conformance.json"), JSON.stringify(edit(await readReport(dir))));
  return copy;
}

const cleanups: (() => Promise<void>)[] = [];
const beforeAllCleanup = (fn: () => Promise<void>) => void cleanups.push(fn);

beforeAll(async () => {
  base = await tempDir("conformance-shards-", beforeAllCleanup);
  shards = [join(base, "shard-1"), join(base, "shard-2")];
  await shardRun(1, 2, shards[0] ?? "");
  await shardRun(2, 2, shards[1] ?? "");
  return async () => {
    for (const fn of cleanups) await fn();
  };
}, 120_000);

describe("two shards of one run", () => {
  test("each judged its share and recorded it", async () => {
    const [one, two] = await Promise.all(shards.map(readReport));
    expect(one?.shard).toEqual({ index: 1, count: 2 });
    expect(two?.shard).toEqual({ index: 2, count: 2 });
    const judged = (report: ConformanceReport | undefined) =>
      report?.requirements.filter((r) => r.excluded !== true).map((r) => r.id);
    expect(judged(one)).toEqual(["LIST-6"]);
    expect(judged(two)).toEqual(["LIST-9", "DEL-2"]);
    expect([one?.seed, two?.seed]).toEqual([41, 42]);
  });

  test("merge into one passing report in all three formats", async () => {
    const out = join(base, "merged");
    const run = await merge([...shards, "--report-dir", out]);
    expect(run.code, run.output).toBe(0);
    expect(run.output).toContain("Result: PASS — 3 pass, 0 fail");
    const report = await readReport(out);
    expect(report.result).toBe("pass");
    expect(report.shard).toBeUndefined();
    expect(report.requirements.filter((r) => r.status === "pass").map((r) => r.id)).toEqual(ONLY);
    expect(
      report.requirements.filter((r) => r.excluded === true).every((r) => r.reason === "not selected by --only"),
    ).toBe(true);
    expect(report.creates.budget).toBe(200);
    const junit = await readFile(join(out, "junit.xml"), "utf8");
    expect(junit).toMatch(/<testsuite name="shard 2\/2: suite\/checks\/delete\.check\.ts"/);
    expect(junit.match(/name="\[DEL-2\] [^"]*"/g)).toHaveLength(1);
    expect(existsSync(join(out, "report.html"))).toBe(true);
  });
});

describe("refused with exit 2 and the reason", () => {
  test("shards of different targets", async () => {
    const other = await doctored(shards[1] ?? "", (r) => ({
      ...r,
      target: "https://agents.example.com (agent support-bot)",
    }));
    const out = join(base, "other-target");
    const run = await merge([shards[0] ?? "", other, "--report-dir", out]);
    expect(run.code).toBe(2);
    expect(run.output).toMatch(
      /shards of different targets: .* judged the embedded fake \(agent agent-a\), .* judged https:\/\/agents\.example\.com/,
    );
    expect(await readReport(out)).toMatchObject({
      result: "error",
      diagnosis: expect.stringContaining("shards of different targets"),
    });
  });

  test("shards of different counts", async () => {
    const other = await doctored(shards[1] ?? "", (r) => ({ ...r, shard: { index: 2, count: 3 } }));
    const run = await merge([shards[0] ?? "", other, "--report-dir", join(base, "other-count")]);
    expect(run.code).toBe(2);
    expect(run.output).toMatch(/shards of different counts: .* is shard 1\/2, .* shard 2\/3/);
  });

  test("a missing shard, through the command line", async () => {
    const run = await cli(["merge", shards[0] ?? "", "--report-dir", join(base, "missing")]);
    expect(run.code).toBe(2);
    expect(run.output).toContain("agent-conformance merge: shard 2/2 is missing (given: 1/2)");
  });

  test("a folder without a conformance.json", async () => {
    const run = await merge([shards[0] ?? "", join(base, "nowhere"), "--report-dir", join(base, "unreadable")]);
    expect(run.code).toBe(2);
    expect(run.output).toContain(`${join(base, "nowhere", "conformance.json")}: cannot be read: no such file`);
  });

  test("no folder at all is a usage error; --help prints the usage", async () => {
    expect((await merge([])).code).toBe(2);
    const help = await merge(["--help"]);
    expect(help.code).toBe(0);
    expect(help.output).toContain("Usage: agent-conformance merge DIR...");
  });
});
