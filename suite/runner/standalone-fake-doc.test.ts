/**
 * README's command that runs the suite against the standalone fake, run as printed (the smoke
 * profile appended, to keep it short), against a fake started with the default keys: every
 * identity it names is one the fake grants, and its stream-error header makes the fake end a
 * stream in an `error` event, so the scope checks and SSE-6 are judged, not skipped.
 */
import { spawn } from "node:child_process";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, test } from "vitest";
import { createFakeServer } from "../../fake-server/index.ts";
import { fencedBlocks } from "../../scripts/ci/markdown.ts";
import type { ConformanceReport } from "../report/report-types.ts";
import { fakeTargetFlags } from "../test-support/fake-target-flags.ts";
import { ROOT } from "../test-support/runner-fixtures.ts";
import { conformanceCli } from "../test-support/conformance-cli.ts";

const RUN_LIMIT_MS = 120_000;

/** The words of README's `npm run conformance -- --base-url http://localhost:4010 …` line, quotes resolved. */
function documentedArgs(readme: string): string[] {
  const block = fencedBlocks(readme, "sh").find((b) => b.text.includes("--base-url http://localhost:4010"));
  if (block === undefined) throw new Error("README.md has no sh block running the suite against http://localhost:4010");
  const line = block.text.replace(/\\\n\s*/g, " ").trim();
  const words = [...line.matchAll(/'([^']*)'|(\S+)/g)].map(([, quoted, bare]) => quoted ?? bare ?? "");
  expect(words.slice(0, 4)).toEqual(["npm", "run", "conformance", "--"]);
  return words.slice(4);
}

test(
  "README's command for the standalone fake judges every scope check and SSE-6 against a fake with the default keys",
  async () => {
    const readme = await readFile(join(ROOT, "README.md"), "utf8");
    const fake = await createFakeServer({ port: 0 });
    const dir = await mkdtemp(join(tmpdir(), "standalone-fake-doc-"));
    try {
      // README's line is the one the tests that run the suite against a standalone fake use.
      expect(documentedArgs(readme)).toEqual(fakeTargetFlags("http://localhost:4010"));
      const args = documentedArgs(readme).map((word) => (word === "http://localhost:4010" ? fake.url : word));
      const env = Object.fromEntries(
        Object.entries(process.env).filter(
          ([name]) => !name.startsWith("VITEST") && !name.startsWith("CONFORMANCE_") && name !== "NODE_ENV",
        ),
      );
      const code = await new Promise<number | null>((resolve, reject) => {
        const child = spawn(
          process.execPath,
          [...conformanceCli(), ...args, "--profile", "smoke", "--report-dir", dir],
          { cwd: ROOT, env, stdio: "ignore", timeout: RUN_LIMIT_MS },
        );
        child.on("error", reject);
        child.on("close", resolve);
      });
      const report = JSON.parse(await readFile(join(dir, "conformance.json"), "utf8")) as ConformanceReport;
      const status = (id: string) => report.requirements.find((r) => r.id === id)?.status;
      expect({ code, result: report.result }).toEqual({ code: 0, result: "pass" });
      expect(status("SSE-6")).toBe("pass");
      const scope = report.requirements.filter((r) => r.family === "scope" && r.level === "MUST");
      expect(scope.length).toBeGreaterThan(0);
      expect(scope.filter((r) => r.status === "pass").map((r) => r.id)).not.toEqual([]);
    } finally {
      await fake.close();
      await rm(dir, { recursive: true, force: true });
    }
  },
  RUN_LIMIT_MS + 10_000,
);
