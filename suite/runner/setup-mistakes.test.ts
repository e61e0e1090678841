/**
 * Setup mistakes, made the way a user makes them: a real process of each command, its exit code
 * and what it printed. A misspelled or unset base-URL variable beside the identities is named as
 * such (never blamed on the key after a run against the embedded fake), and an unknown flag of
 * any command is one line naming the flag meant, not the whole usage.
 */
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { WITH_TSX } from "../test-support/node-with-tsx.ts";
import { conformanceCli } from "../test-support/conformance-cli.ts";
import { describe, expect, test } from "vitest";
import { createFakeServer } from "../../fake-server/index.ts";
import { runCommand } from "../../scripts/package/command.ts";
import { ROOT, tempDir } from "../test-support/runner-fixtures.ts";

const LIMIT_MS = 60_000;
/** The repository's script from any folder: tsx's loader named by its path, not resolved from the folder (the suite's, bundled). */
const tsx = (script: string, args: readonly string[]) =>
  [
    process.execPath,
    [...(script === "scripts/conformance.ts" ? conformanceCli() : [...WITH_TSX, join(ROOT, script)]), ...args],
  ] as const;

describe.concurrent("a base URL misspelled or unset", { timeout: LIMIT_MS + 5_000 }, () => {
  test("CONFORMANCE_BASEURL beside the other variables: exit 2 naming the base URL and the variable meant, with reports, nothing sent", async ({
    onTestFinished,
  }) => {
    const service = await createFakeServer({ port: 0 });
    onTestFinished(() => service.close());
    const reports = await tempDir("setup-mistake-", onTestFinished);
    const [node, args] = tsx("scripts/conformance.ts", ["--report-dir", reports]);
    const run = await runCommand(node, args, {
      cwd: ROOT,
      timeoutMs: LIMIT_MS,
      env: {
        CONFORMANCE_BASEURL: service.url,
        CONFORMANCE_API_KEY: "sk-live-0123456789",
        CONFORMANCE_AGENT_ID: "support-bot",
        CONFORMANCE_OTHER_AGENT_ID: "sales-bot",
      },
    });
    expect(run.code, run.output).toBe(2);
    expect(run.stderr).toContain(
      "no base URL (--base-url or CONFORMANCE_BASE_URL), though CONFORMANCE_API_KEY, CONFORMANCE_AGENT_ID, CONFORMANCE_OTHER_AGENT_ID are given",
    );
    expect(run.stderr).toContain(
      "CONFORMANCE_BASEURL is not a variable the suite reads: did you mean CONFORMANCE_BASE_URL?",
    );
    expect(run.stderr).not.toMatch(/refused|check --api-key/);
    expect(run.stdout + run.stderr).not.toContain("sk-live-0123456789");
    // Refused before anything starts: no embedded fake, no check, no request to the service.
    const { requests } = (await (await fetch(`${service.url}/__fake/requests`)).json()) as { requests: unknown[] };
    expect(requests).toEqual([]);
    const report = JSON.parse(await readFile(join(reports, "conformance.json"), "utf8")) as {
      result: string;
      diagnosis: string;
    };
    expect(report).toMatchObject({
      result: "error",
      diagnosis: expect.stringContaining("did you mean CONFORMANCE_BASE_URL?"),
    });
    expect(await readFile(join(reports, "junit.xml"), "utf8")).toContain("no base URL");
    expect(await readFile(join(reports, "report.html"), "utf8")).toContain("<strong>ERROR</strong>");
  });

  test("--api-key and --agent-id without --base-url: exit 2 naming the missing base URL", async ({
    onTestFinished,
  }) => {
    const reports = await tempDir("setup-mistake-", onTestFinished);
    const [node, args] = tsx("scripts/conformance.ts", [
      "--api-key",
      "sk-live-0123456789",
      "--agent-id",
      "support-bot",
      "--report-dir",
      reports,
    ]);
    const run = await runCommand(node, args, { cwd: ROOT, timeoutMs: LIMIT_MS });
    expect(run.code, run.output).toBe(2);
    expect(run.stderr).toContain(
      "no base URL (--base-url or CONFORMANCE_BASE_URL), though --api-key, --agent-id are given",
    );
    expect(run.stdout + run.stderr).not.toContain("sk-live-0123456789");
  });
});

describe.concurrent("an unknown flag: one line naming the flag meant", { timeout: LIMIT_MS + 5_000 }, () => {
  test.for([
    [
      "the suite",
      "scripts/conformance.ts",
      ["--base_url", "http://127.0.0.1:9"],
      "agent-conformance: Unknown option --base_url: did you mean --base-url?",
    ],
    ["the fake", "scripts/fake.ts", ["--prot", "0"], "agent-service-fake: Unknown option --prot: did you mean --port?"],
    [
      "the proxy",
      "scripts/conformance.ts",
      ["proxy", "--upstrem", "http://127.0.0.1:9"],
      "agent-conformance proxy: Unknown option --upstrem: did you mean --upstream?",
    ],
    [
      "the judge",
      "scripts/conformance.ts",
      ["judge", "x.har", "--gaet", "client"],
      "agent-conformance judge: Unknown option --gaet: did you mean --gate?",
    ],
    [
      "merge",
      "scripts/conformance.ts",
      ["merge", "a", "--reprot-dir", "x"],
      "agent-conformance merge: Unknown option --reprot-dir: did you mean --report-dir?",
    ],
    [
      "the interaction property",
      "scripts/interactions.ts",
      ["--mutnat", "x"],
      "interactions: Unknown option --mutnat: did you mean --mutant?",
    ],
  ] as const)("%s", async ([, script, flags, line], { expect: expectHere, onTestFinished }) => {
    // Run in a folder of its own: the commands that take --report-dir write their reports there.
    const cwd = await tempDir("unknown-flag-", onTestFinished);
    const [node, args] = tsx(script, flags);
    const run = await runCommand(node, args, { cwd, timeoutMs: LIMIT_MS });
    expectHere(run.code, run.output).toBe(2);
    expectHere(run.stderr.trimEnd().split("\n")).toEqual([line]);
    expectHere(run.stdout).toBe("");
  });
});
