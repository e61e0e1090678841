/**
 * The bins in a checkout of the repository: with dist/ never built they run the TypeScript
 * sources, so `npm ci && npx agent-conformance …` as the CI snippets print it works in a fresh
 * clone. (Installed from the tarball they run dist/: pack.test.ts.)
 */
import { resolve } from "node:path";
import { expect, test } from "vitest";
import { runCommand } from "./command.ts";

const ROOT = resolve(import.meta.dirname, "../..");
const LIMIT_MS = 30_000;

test.each([
  ["agent-conformance", /--base-url/],
  ["agent-service-fake", /^Usage: agent-service-fake/m],
])(
  "bin/%s.js --help prints its usage and exits 0",
  async (bin, usage) => {
    const run = await runCommand(process.execPath, [resolve(ROOT, `bin/${bin}.js`), "--help"], {
      cwd: ROOT,
      timeoutMs: LIMIT_MS,
    });
    expect(run.code, run.output).toBe(0);
    expect(run.stdout).toMatch(usage);
  },
  LIMIT_MS,
);
