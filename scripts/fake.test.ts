/**
 * `npm run --silent fake`, the command README.md documents: its first line on stdout is where
 * the fake listens, and a signal to npm's PID stops the fake (npm forwards it; the script execs
 * node so no shell or tsx sits in between), which prints its summary and frees the port.
 */

import { resolve } from "node:path";
import { expect, test } from "vitest";
import { expectStopped, startFake } from "./package/fake-launcher.ts";

const ROOT = resolve(import.meta.dirname, "..");
const NPM_RUN_FAKE = ["run", "--silent", "fake", "--", "--port", "0"];
/** Each launch's hard limit; npm alone takes seconds to start on a loaded machine. */
const LIMIT_MS = 40_000;
const TEST_LIMIT_MS = 60_000;

test(
  "SIGTERM to npm stops the fake, which prints the client violations it saw",
  async ({ onTestFinished }) => {
    const fake = await startFake("npm", NPM_RUN_FAKE, { cwd: ROOT, timeoutMs: LIMIT_MS }, onTestFinished);
    const res = await fetch(new URL("/v1/agents/agent-a/responses", fake.url), {
      method: "POST",
      signal: AbortSignal.timeout(LIMIT_MS),
    });
    expect(res.status).toBe(401);
    process.kill(fake.launcher.pid, "SIGTERM");
    const result = await expectStopped(fake);
    expect(result.code, result.output).toBe(0);
    expect(result.stderr).toMatch(/^ {2}CLIENT-1 MUST .*: 1$/m);
  },
  TEST_LIMIT_MS,
);

test(
  "SIGINT to npm stops the fake",
  async ({ onTestFinished }) => {
    const fake = await startFake("npm", NPM_RUN_FAKE, { cwd: ROOT, timeoutMs: LIMIT_MS }, onTestFinished);
    process.kill(fake.launcher.pid, "SIGINT");
    const result = await expectStopped(fake);
    expect(result.code, result.output).toBe(0);
  },
  TEST_LIMIT_MS,
);

test(
  "Ctrl-C (SIGINT to the whole group, then again from npm) stops the fake once, with one summary",
  async ({ onTestFinished }) => {
    const fake = await startFake("npm", NPM_RUN_FAKE, { cwd: ROOT, timeoutMs: LIMIT_MS }, onTestFinished);
    fake.launcher.killGroup("SIGINT");
    const result = await expectStopped(fake);
    // npm got the Ctrl-C too: once the fake has exited 0, npm either exits 0 or ends by the
    // signal, as a shell's foreground job does (seen both ways on one machine). The fake's own
    // part is what follows: one summary, and its port freed (expectStopped).
    expect([0, "SIGINT"], result.output).toContain(result.code ?? result.signal);
    expect(result.stderr.match(/^client violations: /gm)).toHaveLength(1);
  },
  TEST_LIMIT_MS,
);
