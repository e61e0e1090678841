/**
 * The proxy started the ways README.md and USING.md document, and stopped the way `docker stop`,
 * a CI timeout or a process manager stops it: a signal to the launcher's PID alone (npm, npx),
 * or Ctrl-C to the whole group. Each time the proxy must stop listening, write its reports, HAR
 * and fixtures, and end with every process of the launch.
 */
import { spawn } from "node:child_process";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { expect, onTestFinished, test } from "vitest";
import { createFakeServer } from "../../../fake-server/index.ts";
import { cleanEnv } from "../../../scripts/package/command.ts";

const ROOT = resolve(import.meta.dirname, "../../..");
/** npm alone takes seconds to start on a loaded machine. */
const LIMIT_MS = 40_000;
const TEST_LIMIT_MS = 60_000;

interface Launched {
  pid: number;
  url: string;
  /** Settles once every process holding the launch's stdout and stderr has ended, or the time limit killed them. */
  ended: Promise<{ timedOut: boolean; output: string }>;
  killGroup(signal: NodeJS.Signals): void;
}

/** Starts `command` in a process group of its own and waits for the proxy's listening line. */
async function launch(command: string, args: readonly string[], cwd: string): Promise<Launched> {
  const child = spawn(command, args, { cwd, env: cleanEnv(), stdio: ["ignore", "pipe", "pipe"], detached: true });
  const pid = child.pid;
  if (pid === undefined) throw new Error(`${command} did not start`);
  const killGroup = (signal: NodeJS.Signals) => {
    try {
      process.kill(-pid, signal);
    } catch {
      // The group is gone already.
    }
  };
  onTestFinished(() => killGroup("SIGKILL"));
  let timedOut = false;
  const limit = setTimeout(() => {
    timedOut = true;
    killGroup("SIGKILL");
  }, LIMIT_MS);
  let output = "";
  child.stdout.on("data", (part: Buffer) => (output += part.toString()));
  child.stderr.on("data", (part: Buffer) => (output += part.toString()));
  const ended = new Promise<{ timedOut: boolean; output: string }>((resolveEnd) =>
    child.on("close", () => {
      clearTimeout(limit);
      resolveEnd({ timedOut, output });
    }),
  );
  const deadline = Date.now() + LIMIT_MS;
  let url: string | undefined;
  while ((url = /^listening on (http:\/\/\S+)$/m.exec(output)?.[1]) === undefined) {
    if (Date.now() > deadline) throw new Error(`no listening line: ${output}`);
    if (child.exitCode !== null) throw new Error(`ended before listening: ${output}`);
    await new Promise((resolveWait) => setTimeout(resolveWait, 50));
  }
  return { pid, url, ended, killGroup };
}

function portRefuses(url: string): Promise<boolean> {
  const { hostname, port } = new URL(url);
  return new Promise((resolveConnect) => {
    const socket = connect({ host: hostname, port: Number(port), timeout: 5_000 });
    socket.on("connect", () => {
      socket.destroy();
      resolveConnect(false);
    });
    socket.on("timeout", () => {
      socket.destroy();
      resolveConnect(false);
    });
    socket.on("error", (error: NodeJS.ErrnoException) => resolveConnect(error.code === "ECONNREFUSED"));
  });
}

async function setUp() {
  const dir = await mkdtemp(join(tmpdir(), "proxy-launcher-"));
  onTestFinished(() => rm(dir, { recursive: true, force: true }));
  const fake = await createFakeServer({ port: 0 });
  onTestFinished(() => fake.close());
  const flags = [
    "--upstream",
    fake.url,
    "--report-dir",
    join(dir, "reports"),
    "--har",
    join(dir, "seen.har"),
    "--record-fixtures",
    join(dir, "fixtures"),
  ];
  return { dir, flags };
}

/** One conversation through the proxy, so the reports, HAR and fixtures have something in them. */
async function converse(url: string): Promise<void> {
  const answer = await fetch(`${url}/v1/agents/agent-a/responses`, {
    method: "POST",
    headers: {
      authorization: "Bearer sk-fake-a",
      "content-type": "application/json",
      "idempotency-key": crypto.randomUUID(),
    },
    body: JSON.stringify({ message: "What are your opening hours?" }),
    signal: AbortSignal.timeout(LIMIT_MS),
  });
  expect(answer.status).toBe(200);
}

async function expectStoppedWithReports(launched: Launched, dir: string): Promise<string> {
  const { timedOut, output } = await launched.ended;
  expect(timedOut, output).toBe(false);
  expect(output).not.toMatch(/Warning/);
  expect(await portRefuses(launched.url), output).toBe(true);
  const report = JSON.parse(await readFile(join(dir, "reports", "conformance.json"), "utf8")) as {
    result: string;
    traffic: { exchanges: { judged: number } };
  };
  expect(report.result, output).toBe("pass");
  expect(report.traffic.exchanges.judged).toBe(1);
  expect(JSON.parse(await readFile(join(dir, "seen.har"), "utf8")).log.entries).toHaveLength(1);
  expect(await readFile(join(dir, "reports", "junit.xml"), "utf8")).toContain("<testsuites");
  expect(output).toMatch(/^fixtures: 1 conversation\(s\) written to /m);
  expect(output.match(/^Result: PASS/gm), output).toHaveLength(1);
  return output;
}

test(
  "SIGTERM to npm (`npm run conformance -- proxy`) reaches the proxy: port freed, reports, HAR and fixtures written",
  async () => {
    const { dir, flags } = await setUp();
    const launched = await launch("npm", ["run", "conformance", "--", "proxy", ...flags], ROOT);
    await converse(launched.url);
    process.kill(launched.pid, "SIGTERM");
    await expectStoppedWithReports(launched, dir);
  },
  TEST_LIMIT_MS,
);

test(
  "Ctrl-C under npm (SIGINT to the whole group, and again from npm) writes the reports once",
  async () => {
    const { dir, flags } = await setUp();
    const launched = await launch("npm", ["run", "conformance", "--", "proxy", ...flags], ROOT);
    await converse(launched.url);
    launched.killGroup("SIGINT");
    await expectStoppedWithReports(launched, dir);
  },
  TEST_LIMIT_MS,
);

test(
  "SIGTERM to npx (`npx agent-conformance proxy`, the package's bin under `sh -c`) reaches the proxy",
  async () => {
    const { dir, flags } = await setUp();
    // `--no`: the bin of this checkout (bin/agent-conformance.js), never one fetched from the registry.
    const launched = await launch("npx", ["--no", "--", "agent-conformance", "proxy", ...flags], ROOT);
    await converse(launched.url);
    process.kill(launched.pid, "SIGTERM");
    await expectStoppedWithReports(launched, dir);
  },
  TEST_LIMIT_MS,
);
