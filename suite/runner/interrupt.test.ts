/**
 * A run stopped the ways a user and a CI system stop it: Ctrl-C (SIGINT to the whole process
 * group), SIGTERM to the launcher alone (`npm run`, `npx`), and a second signal. Real child
 * processes against a fake paced like an LLM (each create takes about a second), so the signal
 * comes while checks and requests are running. After the first signal the run must end within
 * a short bound, leave none of its conversations on the target, write all three reports with
 * result "incomplete" and the reason, print its summary and exit 130 or 143; after a second, it
 * ends at once and names every conversation it left behind. The judge is stopped the same way.
 * The tests run side by side (each has its own service, folder and process group): most of each
 * is waiting for the paced service and for the processes to end.
 */
import { spawn } from "node:child_process";
import { writeFile, readFile, readdir } from "node:fs/promises";
import { randomUUID } from "node:crypto";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { test, type TestContext } from "vitest";
import { startFakeServer, type InspectableFakeServer } from "../../fake-server/server.ts";
import { fakeTargetFlags } from "../test-support/fake-target-flags.ts";
import { cleanEnv } from "../../scripts/package/command.ts";
import type { ConformanceReport } from "../report/report-types.ts";
import type { ObservedExchange } from "../traffic/exchange.ts";
import { writeHar } from "../traffic/har.ts";
import { ROOT, tempDir } from "../test-support/runner-fixtures.ts";

/** npm alone takes seconds to start on a loaded machine; the run is stopped long before its end. */
const LIMIT_MS = 120_000;
/** From the first signal to the exit: the in-flight bound (3 s), cleanup, reports and vitest's close. */
const STOP_MS = 30_000;
/** From a second signal to the exit: a moment's grace, the reports, and the processes' ends on a busy machine. */
const AT_ONCE_MS = 15_000;

/** A standalone service whose creates take about a second each. */
async function slowService(t: TestContext): Promise<InspectableFakeServer> {
  const fake = await startFakeServer({
    port: 0,
    pacing: { firstEventMs: 300, deltaDelayMs: 30, minDeltas: 20, maxDeltas: 30 },
  });
  t.onTestFinished(() => fake.close());
  return fake;
}

const stored = (fake: InspectableFakeServer) => [...fake.app.internals.conversations.all()].map((c) => c.id);

function suiteFlags(url: string, reports: string): string[] {
  return [...fakeTargetFlags(url, { streamError: false }), "--report-dir", reports];
}

interface Launched {
  /** The launcher's PID: npm or npx. */
  pid: number;
  /** stdout and stderr so far, in arrival order. */
  output(): string;
  /** When every process holding the output has ended (or the time limit killed the group). */
  finished: Promise<{ code: number | null; output: string; timedOut: boolean }>;
  killGroup(signal: NodeJS.Signals): void;
}

/** Started in a process group of its own, as a terminal starts a command; killed at the time limit. */
function launch(t: TestContext, command: string, args: readonly string[], env: NodeJS.ProcessEnv = {}): Launched {
  const child = spawn(command, args, {
    cwd: ROOT,
    env: cleanEnv(env),
    stdio: ["ignore", "pipe", "pipe"],
    detached: true,
  });
  const pid = child.pid;
  if (pid === undefined) throw new Error(`${command} did not start`);
  const killGroup = (signal: NodeJS.Signals) => {
    try {
      process.kill(-pid, signal);
    } catch {
      // The group is gone already.
    }
  };
  t.onTestFinished(() => killGroup("SIGKILL"));
  let output = "";
  let timedOut = false;
  const limit = setTimeout(() => {
    timedOut = true;
    killGroup("SIGKILL");
  }, LIMIT_MS);
  child.stdout.on("data", (part: Buffer) => (output += part.toString()));
  child.stderr.on("data", (part: Buffer) => (output += part.toString()));
  const finished = new Promise<{ code: number | null; output: string; timedOut: boolean }>((resolve) =>
    child.on("close", (code, signal) => {
      clearTimeout(limit);
      resolve({ code, output: `$ ${command} ${args.join(" ")}\n${output}[exit: ${code ?? signal}]`, timedOut });
    }),
  );
  return { pid, output: () => output, finished, killGroup };
}

/**
 * A temporary folder of the run's own (TMPDIR), to see what the run leaves there. The TypeScript
 * loader's cache lives there too, so the run compiles every module it loads, after the signal
 * as well, as on a fresh clone.
 */
const ownTemp = (t: TestContext) => tempDir("interrupt-tmp-", t.onTestFinished);
const leftIn = async (folder: string) =>
  (await readdir(folder)).filter((name) => name.startsWith("agent-conformance-"));

/** Waits until `ready` holds; fails if the command ended first. */
async function until(run: Launched, ready: () => boolean): Promise<void> {
  let ended = false;
  void run.finished.then(() => (ended = true));
  while (!ready()) {
    if (ended) throw new Error(`the command ended before it was stopped:\n${(await run.finished).output}`);
    await sleep(100);
  }
}

/** Until the run has conversations on the target: checks are running, requests in flight. */
const midRun = (fake: InspectableFakeServer, run: Launched) => until(run, () => stored(fake).length >= 2);

async function exitAfterSignal(t: TestContext, run: Launched, boundMs: number) {
  const sent = performance.now();
  const result = await run.finished;
  t.expect(result.timedOut, result.output).toBe(false);
  t.expect(performance.now() - sent, result.output).toBeLessThan(boundMs);
  return result;
}

async function reportsOf(t: TestContext, dir: string): Promise<ConformanceReport> {
  const report = JSON.parse(await readFile(join(dir, "conformance.json"), "utf8")) as ConformanceReport;
  const junit = await readFile(join(dir, "junit.xml"), "utf8");
  t.expect(junit).toMatch(/^<\?xml[\s\S]*<\/testsuites>\s*$/);
  t.expect(await readFile(join(dir, "report.html"), "utf8")).toContain("<strong>INCOMPLETE</strong>");
  return report;
}

/** What every first-signal stop must show: reason, unjudged requirements saying so, nothing left behind. */
async function expectCleanStop(
  t: TestContext,
  fake: InspectableFakeServer,
  reports: string,
  output: string,
  signal: "SIGINT" | "SIGTERM",
): Promise<void> {
  const report = await reportsOf(t, reports);
  t.expect(report.result).toBe("incomplete");
  t.expect(report.interrupted, output).toMatchObject({
    signal,
    atOnce: false,
    reason: t.expect.stringMatching(new RegExp(`^interrupted by ${signal} after \\d+ of \\d+ checks$`)),
  });
  const { done, total } = report.interrupted?.checks ?? { done: 0, total: 0 };
  t.expect(done).toBeLessThan(total);
  const unjudged = report.requirements.filter((r) => r.reason === `not judged: ${report.interrupted?.reason}`);
  t.expect(unjudged.length).toBeGreaterThan(0);
  t.expect(report.incomplete.map((r) => r.reason)).toContain(`not judged: ${report.interrupted?.reason}`);
  t.expect(report.cleanup.failed, output).toEqual([]);
  t.expect(report.cleanup.deleted).toBeGreaterThan(0);
  // Every conversation the run created is gone from the target.
  t.expect(stored(fake), output).toEqual([]);
  t.expect(output).toMatch(/^Result: INCOMPLETE/m);
  t.expect(output).toContain(`Interrupted: ${report.interrupted?.reason}`);
}

test.concurrent(
  "Ctrl-C under npm (SIGINT to the whole group, and again from npm): exit 130, reports incomplete, nothing left on the target",
  async (t) => {
    const fake = await slowService(t);
    const reports = join(await tempDir("interrupt-", t.onTestFinished), "reports");
    const scratch = await ownTemp(t);
    const run = launch(t, "npm", ["run", "conformance", "--", ...suiteFlags(fake.url, reports)], { TMPDIR: scratch });
    await midRun(fake, run);
    run.killGroup("SIGINT");
    const result = await exitAfterSignal(t, run, STOP_MS);
    t.expect(result.code, result.output).toBe(130);
    await expectCleanStop(t, fake, reports, result.output, "SIGINT");
    t.expect(await leftIn(scratch)).toEqual([]);
  },
  LIMIT_MS,
);

test.concurrent(
  "SIGTERM to npm's PID alone (a CI timeout): npm passes it on, exit 143, reports incomplete, nothing left",
  async (t) => {
    const fake = await slowService(t);
    const reports = join(await tempDir("interrupt-", t.onTestFinished), "reports");
    const run = launch(t, "npm", ["run", "conformance", "--", ...suiteFlags(fake.url, reports)]);
    await midRun(fake, run);
    process.kill(run.pid, "SIGTERM");
    const result = await exitAfterSignal(t, run, STOP_MS);
    t.expect(result.code, result.output).toBe(143);
    await expectCleanStop(t, fake, reports, result.output, "SIGTERM");
  },
  LIMIT_MS,
);

test.concurrent(
  "SIGTERM to npx's PID alone (`npx agent-conformance`, the bin under `sh -c`): the run still stops cleanly and writes its reports",
  async (t) => {
    const fake = await slowService(t);
    const reports = join(await tempDir("interrupt-", t.onTestFinished), "reports");
    // `--no`: the bin of this checkout, never one fetched from the registry.
    const run = launch(t, "npx", ["--no", "--", "agent-conformance", ...suiteFlags(fake.url, reports)]);
    await midRun(fake, run);
    process.kill(run.pid, "SIGTERM");
    const result = await exitAfterSignal(t, run, STOP_MS);
    await expectCleanStop(t, fake, reports, result.output, "SIGTERM");
  },
  LIMIT_MS,
);

test.concurrent(
  "a second Ctrl-C stops at once: reports still written, every conversation left on the target named",
  async (t) => {
    const fake = await slowService(t);
    // Deletes that take 5 s: whatever the first signal's cleanup has reached, conversations are left when the second comes.
    const rule = await fetch(`${fake.url}/__fake/faults`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ match: { operation: "delete" }, fault: "first-event-delay=5000", times: 0 }),
    });
    t.expect(rule.status).toBe(201);
    const reports = join(await tempDir("interrupt-", t.onTestFinished), "reports");
    const scratch = await ownTemp(t);
    const run = launch(t, "npm", ["run", "conformance", "--", ...suiteFlags(fake.url, reports)], { TMPDIR: scratch });
    await midRun(fake, run);
    run.killGroup("SIGINT");
    // Past the moment that makes npm's forwarded copy of the first one count as the same.
    await sleep(1_300);
    run.killGroup("SIGINT");
    const result = await exitAfterSignal(t, run, AT_ONCE_MS);
    t.expect(result.code, result.output).toBe(130);
    const report = await reportsOf(t, reports);
    t.expect(report).toMatchObject({ result: "incomplete", interrupted: { signal: "SIGINT", atOnce: true } });
    const left = report.cleanup.failed.map((f) => f.conversationId);
    t.expect(left.length, result.output).toBeGreaterThan(0);
    // Named, each of them, in the report and on the console. One whose DELETE was never sent is
    // still there; one whose DELETE was in flight may be gone (the fake finishes a request whose
    // client left), and the report says it is not confirmed rather than left.
    for (const { conversationId, reason } of report.cleanup.failed) {
      t.expect(result.output).toContain(conversationId);
      if (reason.startsWith("not deleted:")) t.expect(stored(fake)).toContain(conversationId);
      else t.expect(reason).toMatch(/^not confirmed deleted: .*before its DELETE was answered/);
    }
    // And nothing still on the target goes unnamed.
    for (const id of stored(fake)) t.expect(left).toContain(id);
    t.expect(result.output).toMatch(/^Left on the target \(\d+ conversation\(s\) not deleted\):/m);
    // Stopped at once, it still removes its journal.
    t.expect(await leftIn(scratch)).toEqual([]);
  },
  LIMIT_MS,
);

/** Conforming traffic of `conversations` creates and listings, as a HAR file. */
async function bigHar(path: string, conversations: number): Promise<void> {
  const base = "http://service.example/v1/agents/agent-a";
  const traffic: ObservedExchange[] = [];
  for (let i = 0; i < conversations; i++) {
    const id = randomUUID();
    const at = 1_795_000_000_000 + i * 200;
    const items = [
      { role: "user", content: "m1" },
      { role: "assistant", content: "Answer." },
    ];
    traffic.push(
      {
        sequence: 2 * i,
        startedAt: at,
        durationMs: 10,
        failure: undefined,
        request: {
          method: "POST",
          url: `${base}/responses`,
          headers: {
            authorization: "Bearer sk-har",
            "content-type": "application/json",
            "idempotency-key": randomUUID(),
          },
          body: JSON.stringify({ message: "m1" }),
        },
        response: {
          status: 200,
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ conversation_id: id, response: "Answer.", citations: [] }),
          complete: true,
          chunks: undefined,
        },
      },
      {
        sequence: 2 * i + 1,
        startedAt: at + 50,
        durationMs: 10,
        failure: undefined,
        request: {
          method: "GET",
          url: `${base}/conversations/${id}/messages`,
          headers: { authorization: "Bearer sk-har" },
          body: undefined,
        },
        response: {
          status: 200,
          headers: { "content-type": "application/json" },
          body: JSON.stringify({
            conversation: { id, created_at: "2026-11-25T10:00:00Z", updated_at: "2026-11-25T10:00:01Z" },
            items,
            page: 1,
            page_size: 50,
            total: 2,
            has_more: false,
          }),
          complete: true,
          chunks: undefined,
        },
      },
    );
  }
  await writeFile(path, JSON.stringify(writeHar(traffic)));
}

test.concurrent(
  "the judge, stopped by Ctrl-C while it judges a long recording: exit 130, reports of what it judged, result incomplete",
  async (t) => {
    const dir = await tempDir("interrupt-judge-", t.onTestFinished);
    const har = join(dir, "long.har");
    await bigHar(har, 25_000);
    const reports = join(dir, "reports");
    const run = launch(t, "npm", ["run", "conformance", "--", "judge", har, "--report-dir", reports]);
    // The judge says when a long judging starts: from then on its handlers are in place.
    await until(run, () => run.output().includes("agent-conformance judge: judging 50000 exchanges"));
    run.killGroup("SIGINT");
    const result = await exitAfterSignal(t, run, STOP_MS);
    t.expect(result.code, result.output).toBe(130);
    const report = JSON.parse(await readFile(join(reports, "conformance.json"), "utf8")) as ConformanceReport;
    t.expect(report.result).toBe("incomplete");
    t.expect(report.interrupted?.reason).toMatch(/^interrupted by SIGINT after \d+ of 50000 exchanges$/);
    t.expect(report.interrupted?.checks.done).toBeLessThan(50_000);
    t.expect(await readFile(join(reports, "junit.xml"), "utf8")).toContain("<testsuites");
    t.expect(await readFile(join(reports, "report.html"), "utf8")).toContain("INCOMPLETE");
    t.expect(result.output).toContain(`Interrupted: ${report.interrupted?.reason}`);
  },
  LIMIT_MS,
);
