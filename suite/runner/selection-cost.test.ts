/**
 * What a selection costs, through the real command (`npm run conformance` runs this script):
 * --only SSE-1 spends what its own check needs (the small conversation), not the interaction
 * property's creates; --dry-run says so beforehand, sending nothing, even to a base URL that
 * would take a connection, and never prints a secret.
 */

import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { serveTcp } from "../test-support/local-servers.ts";
import { tempDir } from "../test-support/runner-fixtures.ts";
import { documentedCreates } from "../test-support/documented-figures.ts";
import type { ConformanceReport } from "../report/report-types.ts";
import { conformanceCli } from "../test-support/conformance-cli.ts";

const SPAWN_LIMIT_MS = 90_000;
const SECRET_KEY = "sk-live-dry-run-secret-0123";
const SECRET_HEADER = "gateway-secret-4567";

/** The environment without this process's own vitest and conformance variables. */
function cleanEnv(): NodeJS.ProcessEnv {
  return Object.fromEntries(
    Object.entries(process.env).filter(
      ([name]) =>
        !name.startsWith("VITEST") && !name.startsWith("CONFORMANCE_") && name !== "TEST" && name !== "NODE_ENV",
    ),
  );
}

function runCli(args: string[], cwd: string): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...conformanceCli(), ...args], {
      cwd,
      env: cleanEnv(),
      timeout: SPAWN_LIMIT_MS,
    });
    let output = "";
    child.stdout.on("data", (part: Buffer) => (output += part.toString()));
    child.stderr.on("data", (part: Buffer) => (output += part.toString()));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, output }));
  });
}

/** The "Creates: at most N of the cap of C" line of a dry run. */
const dryTotal = (output: string) => Number(/^Creates: at most (\d+) of the cap of (\d+)/m.exec(output)?.[1]);

// One process at a time: each is a whole run's start-up, and the machine may have two cores.
describe("what a selection costs", () => {
  test(
    "--only SSE-1 spends the small conversation's 3 creates, as its dry run says; the property does not run",
    async ({ onTestFinished }) => {
      const cwd = await tempDir("conformance-only-", onTestFinished);
      const dry = await runCli(["--only", "SSE-1", "--dry-run"], cwd);
      expect(dry.code, dry.output).toBe(0);
      expect(dry.output).toContain(
        "[SSE-1] the stream answers 2xx with Content-Type text/event-stream (builds the shared small conversation: 3)",
      );
      expect(dry.output).not.toContain("interactions:");
      expect(dryTotal(dry.output)).toBe(3);

      const run = await runCli(["--only", "SSE-1", "--report-dir", "reports"], cwd);
      expect(run.code, run.output).toBe(0);
      const report = JSON.parse(await readFile(join(cwd, "reports/conformance.json"), "utf8")) as ConformanceReport;
      expect(report.creates.spent).toBe(3);
      // README's performance section says so too.
      expect(await documentedCreates("`--only SSE-1`")).toBe(report.creates.spent);
      expect(report.interactions).toBeUndefined();
      expect(report.requirements.find((r) => r.id === "SSE-1")).toMatchObject({
        status: "pass",
        tests: [expect.objectContaining({ file: "streaming" })],
      });
    },
    2 * SPAWN_LIMIT_MS,
  );

  test(
    "the property runs when its family is selected, or for a requirement no other check judges",
    async ({ onTestFinished }) => {
      const cwd = await tempDir("conformance-only-", onTestFinished);
      const family = await runCli(["--only", "interactions", "--dry-run"], cwd);
      expect(family.code, family.output).toBe(0);
      expect(family.output).toContain("builds the shared interaction property: up to 24, what the budget leaves");
      const sole = await runCli(["--only", "IDEM-9", "--dry-run"], cwd);
      expect(sole.output).toContain(
        "[IDEM-9] interactions: the losers of a same-key race get 409 or the replay, never a 5xx (builds the shared interaction property",
      );
      const both = await runCli(["--only", "SSE-*,IDEM-1", "--dry-run"], cwd);
      expect(both.output).not.toContain("interactions:");
      expect(dryTotal(both.output)).toBeLessThan(70);
    },
    3 * SPAWN_LIMIT_MS,
  );

  test(
    "--dry-run sends nothing to the target, prints identities and settings with every secret redacted, writes no report, exits 0",
    async ({ onTestFinished }) => {
      let connections = 0;
      const target = await serveTcp((socket) => {
        connections++;
        socket.destroy();
      }, onTestFinished);
      const cwd = await tempDir("conformance-dry-", onTestFinished);
      const run = await runCli(
        [
          "--dry-run",
          "--base-url",
          target.url,
          "--api-key",
          SECRET_KEY,
          "--agent-id",
          "support-bot",
          "--other-agent-id",
          "sales-bot",
          "--header",
          `X-Gateway: ${SECRET_HEADER}`,
          "--profile",
          "smoke",
          "--report-dir",
          "reports",
        ],
        cwd,
      );
      expect(run.code, run.output).toBe(0);
      expect(connections).toBe(0);
      expect(existsSync(join(cwd, "reports"))).toBe(false);
      expect(run.output).not.toContain(SECRET_KEY);
      expect(run.output).not.toContain(SECRET_HEADER);
      expect(run.output).toContain(`Target: ${target.url}`);
      expect(run.output).toContain("primary        agent support-bot, key sk-l…(redacted)");
      expect(run.output).toContain("other agent    agent sales-bot, with the primary key");
      expect(run.output).toContain("other key      not given");
      expect(run.output).toContain("headers on every request: x-gateway: (redacted)");
      expect(run.output).toContain("profile smoke; cap 25 creates");
      expect(run.output).toMatch(/^\s+skip {2}\[SCOPE-3\] .*\(needs --other-api-key\)$/m);
      expect(dryTotal(run.output)).toBeLessThanOrEqual(25);
    },
    SPAWN_LIMIT_MS + 10_000,
  );
});
