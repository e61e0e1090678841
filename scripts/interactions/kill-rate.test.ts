/**
 * `npm run interactions -- --kill-rate` as a user runs it (a child process), on one mutant and
 * one run; the table's rules on hand-made outcomes; and the replay line of a plain sweep, which
 * names the fake's mutant.
 */
import { spawn } from "node:child_process";
import { readFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import { describe, expect, test } from "vitest";
import type { PropertyOutcome } from "../../suite/interactions/property.ts";
import { tempDir } from "../../suite/test-support/runner-fixtures.ts";
import { caughtBy, killRateLines, type KillRateTable } from "./kill-rate.ts";
import { WITH_TSX } from "../../suite/test-support/node-with-tsx.ts";

const ROOT = resolve(import.meta.dirname, "../..");
const SCRIPT = join(ROOT, "scripts/interactions.ts");
/** A mutant the property meets in every sequence: a page asked for without its size gets the wrong default. */
const MUTANT = "page-alone-default-size";

function interactions(args: string[]): Promise<{ code: number | null; output: string }> {
  return new Promise((done, reject) => {
    const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith("VITEST")));
    const child = spawn(process.execPath, [...WITH_TSX, SCRIPT, ...args], { cwd: ROOT, env, timeout: 120_000 });
    let output = "";
    child.stdout.on("data", (part: Buffer) => (output += part.toString()));
    child.stderr.on("data", (part: Buffer) => (output += part.toString()));
    child.on("error", reject);
    child.on("close", (code) => done({ code, output }));
  });
}

describe.concurrent("npm run interactions", { timeout: 125_000 }, () => {
  test("--kill-rate --runs 1 --mutant prints the mutant's line and the total, and writes the table", async ({
    onTestFinished,
  }) => {
    const json = join(await tempDir("kill-rate-", onTestFinished), "kill-rate.json");
    const run = await interactions(["--kill-rate", "--runs", "1", "--mutant", MUTANT, "--json", json]);
    expect(run.output).toMatch(
      /^kill rate: 1 mutant\(s\) × 1 run\(s\), seeds from \d+, profile full \(24 creates per run\)/m,
    );
    expect(run.output).toMatch(new RegExp(`^  ${MUTANT}  LIST-2 +1/1$`, "m"));
    expect(run.output).toContain(
      "total: 1/1 runs caught their mutant by its own requirement; 1 of 1 mutant(s) in every run",
    );
    expect(run.code, run.output).toBe(0);
    const table = JSON.parse(await readFile(json, "utf8")) as KillRateTable;
    expect(table).toMatchObject({
      profile: "full",
      createsPerRun: 24,
      runsPerMutant: 1,
      total: { runs: 1, caught: 1 },
      mutants: [{ mutant: MUTANT, requirement: "LIST-2", runs: 1, caught: 1, missed: [] }],
    });
  });

  test("the replay line of a finding names the mutant it was found against", async () => {
    const run = await interactions(["--mutant", MUTANT, "--seeds", "1", "--seed", "7"]);
    expect(run.code, run.output).toBe(1);
    expect(run.output).toMatch(new RegExp(`npm run interactions -- --seed 7 --path \\S+ --mutant ${MUTANT}`));
  });

  test.for([
    [["--kill-rate", "--mutant", "no-such-mutant"], "--mutant no-such-mutant: no such mutant"],
    [["--kill-rate", "--profile", "deep"], '--profile must be full or smoke, not "deep"'],
    [
      ["--mutant", MUTANT, "--mutant", "race-loser-500"],
      "--mutant: one mutant at a time (several only with --kill-rate)",
    ],
  ] as const)("%j is a usage error", async ([args, message]) => {
    const run = await interactions([...args]);
    expect(run.code).toBe(2);
    expect(run.output).toContain(message);
  });
});

describe("the table", () => {
  const outcome = (failure: string | undefined, warnings: string[] = []) =>
    ({
      failure: failure === undefined ? undefined : { requirement: failure },
      warnings: warnings.map((requirement) => ({ violation: { requirement } })),
    }) as unknown as PropertyOutcome;

  test("a run catches a mutant by its own requirement only; a SHOULD's by a warning too", () => {
    expect(caughtBy(outcome("IDEM-5"), "IDEM-5")).toBe(true);
    expect(caughtBy(outcome("RESP-2"), "IDEM-5")).toBe(false);
    expect(caughtBy(outcome(undefined, ["LIST-8"]), "LIST-8")).toBe(true);
    expect(caughtBy(outcome(undefined, ["IDEM-5"]), "IDEM-5")).toBe(false);
  });

  test("prints each mutant's rate with the seeds it escaped, then the total", () => {
    const lines = killRateLines({
      profile: "smoke",
      createsPerRun: 6,
      runsPerMutant: 2,
      baseSeed: 10,
      mutants: [
        { mutant: "race-loser-500", requirement: "IDEM-9", runs: 2, caught: 2, missed: [] },
        {
          mutant: "page-size-100-as-99",
          requirement: "LIST-5",
          runs: 2,
          caught: 1,
          missed: [{ seed: 11, found: ["RESP-2"] }],
        },
      ],
      total: { runs: 4, caught: 3 },
    });
    expect(lines).toEqual([
      "  race-loser-500       IDEM-9        2/2",
      "  page-size-100-as-99  LIST-5        1/2  missed: seed 11 (found RESP-2)",
      "total: 3/4 runs caught their mutant by its own requirement; 1 of 2 mutant(s) in every run",
    ]);
  });
});
