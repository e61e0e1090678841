/**
 * Progress per family: the line format, when lines are redrawn, and a real run whose progress
 * goes to a sink: one line per finished family, redraws only when live, never a key.
 */

import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { isCi, stdoutSink, tallyLine } from "./progress.ts";
import { runConformance } from "./run.ts";
import {
  FAILING_MUST,
  KEY,
  PASSING_DELETE,
  QUOTING_ECHO,
  ROOT,
  tempDir,
  tinyTarget,
} from "../test-support/runner-fixtures.ts";

describe("the progress line", () => {
  test("shows the family, done/total checks, and failures, inconclusive checks and skips only when there are some", () => {
    expect(tallyLine({ family: "responses", total: 12, passed: 5, failed: 1, skipped: 1, inconclusive: 0 }, 11)).toBe(
      "responses     7/12 checks  1 failed, 1 skipped",
    );
    expect(tallyLine({ family: "auth", total: 2, passed: 1, failed: 0, skipped: 0, inconclusive: 1 }, 11)).toBe(
      "auth           2/2 checks  1 inconclusive",
    );
    expect(tallyLine({ family: "errors", total: 1, passed: 1, failed: 0, skipped: 0, inconclusive: 0 }, 11)).toBe(
      "errors         1/1 check",
    );
  });

  test.each([
    [{ CI: "true" }, true],
    [{ CI: "1" }, true],
    [{ CI: "woodpecker" }, true],
    [{ CI: "false" }, false],
    [{ CI: "0" }, false],
    [{ CI: "" }, false],
    [{}, false],
  ])("CI environment %o is CI: %s", (env, expected) => {
    expect(isCi(env)).toBe(expected);
  });

  test("CI never redraws lines, even on a terminal", () => {
    expect(stdoutSink((t) => t, { CI: "true" }).live).toBe(false);
  });
});

/** Two families: "alpha" (a passing and a failing check) and "beta" (one check quoting an echoed key). */
async function twoFamilies(): Promise<string> {
  const dir = await tempDir("conformance-progress-");
  const header = `import { check } from ${JSON.stringify(join(ROOT, "suite/checks/runtime/check.ts"))};\n`;
  // The second check of alpha finishes well after the first, so that vitest reports the first on
  // its own even on a loaded machine (results that end together may reach the reporter at once).
  const failingLater = FAILING_MUST.replace(
    "async (target) => {",
    "async (target) => {\n  await new Promise((resolve) => setTimeout(resolve, 500));",
  );
  await writeFile(join(dir, "alpha.check.ts"), header + PASSING_DELETE + failingLater);
  await writeFile(join(dir, "beta.check.ts"), header + QUOTING_ECHO);
  return dir;
}

async function runWithProgress(live: boolean, only: string[] = []): Promise<string> {
  const server = await tinyTarget();
  let text = "";
  const outcome = await runConformance(
    {
      baseUrl: server.url,
      apiKey: KEY,
      agentId: "agent-x",
      checksDir: await twoFamilies(),
      reportDir: await tempDir("conformance-reports-"),
      only,
    },
    { progress: { live, write: (t) => (text += t) }, print: () => {}, printError: () => {} },
  );
  expect(outcome.exitCode).toBe(1);
  return text;
}

describe("progress of a real run", () => {
  test("in CI: one plain line per finished family, nothing redrawn", async () => {
    const text = await runWithProgress(false);
    expect(text).not.toMatch(/[\r\x1b]/);
    expect(text.endsWith("\n")).toBe(true);
    expect(text.trimEnd().split("\n")).toEqual(["alpha    2/2 checks  1 failed", "beta     1/1 check  1 failed"]);
  });

  test("on a terminal: the family's line is redrawn as checks finish, and stays when it is done", async () => {
    const text = await runWithProgress(true);
    const alpha = text.split("\r\x1b[2K").filter((s) => s.startsWith("alpha"));
    expect(alpha[0]).toBe("alpha    0/2 checks");
    expect(alpha).toContain("alpha    1/2 checks");
    expect(alpha.at(-1)).toBe("alpha    2/2 checks  1 failed\n");
    expect(text.split("\n").filter((l) => l !== "")).toHaveLength(2);
  });

  test("counts only the checks the selection took; a family it left without one prints nothing", async () => {
    const text = await runWithProgress(false, ["DEL-2"]);
    expect(text.trimEnd().split("\n")).toEqual(["alpha    2/2 checks  1 failed"]);
  });

  test("never prints a key, even when a check's failure quotes the target echoing it", async () => {
    for (const live of [false, true]) {
      const text = await runWithProgress(live);
      expect(text).toContain("beta");
      expect(text).not.toContain(KEY);
    }
  });
});
