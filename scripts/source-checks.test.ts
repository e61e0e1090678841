/**
 * The sources type-check (`npm run typecheck`) and keep the house style (`npm run format:check`,
 * Prettier at 120 columns), as the scripts define them. They run as tests, side by side with
 * the rest of `npm test`, not before it: each keeps one core busy for several seconds while
 * most test files wait on their servers.
 */
import { describe, test } from "vitest";
import { runCommand } from "./package/command.ts";
import { ROOT } from "../suite/test-support/runner-fixtures.ts";

/** Both take several seconds alone, a minute or more beside the heaviest files on 2 cores. */
const LIMIT_MS = 180_000;

describe.concurrent("the sources", { timeout: LIMIT_MS + 5_000 }, () => {
  test.for([
    ["type-check", "typecheck"],
    ["follow the house style", "format:check"],
  ] as const)("%s (npm run %s)", async ([, script], { expect }) => {
    const run = await runCommand("npm", ["run", "--silent", script], { cwd: ROOT, timeoutMs: LIMIT_MS });
    expect(run.code, run.output).toBe(0);
  });
});
