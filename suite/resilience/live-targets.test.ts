/**
 * The suite from its command line against targets that behave like deployed services (the
 * fake's deployment variants): each gets its documented outcome and exit code, the waiting it
 * caused is shown, and neither a key nor a --header value appears in any output or report.
 * The smoke profile keeps each run short; the proof gate runs every variant in full (the error
 * shapes and timestamp formats among them), so here only those whose point is the deployment:
 * waiting for 429 and 503, a lagging listing, a base URL with a path, a target too slow.
 */
import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, test, type ExpectStatic } from "vitest";
import { createFakeServer, type FakeServerOptions } from "../../fake-server/index.ts";
import type { ConformanceReport } from "../report/report-types.ts";
import { runConformanceCli } from "./run-cli.ts";

const KEY = "sk-fake-a";
const OTHER_KEY = "sk-fake-b";
const GATEWAY_SECRET = "gw-live-5e6f7a8b9c";
const RUN_LIMIT_MS = 120_000;
const TEST_TIMEOUT_MS = RUN_LIMIT_MS + 10_000;

const cleanups: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

interface LiveRun {
  code: number | null;
  output: string;
  report: ConformanceReport | undefined;
  /** stdout, stderr and every report file, for the secrets check. */
  everything: string;
}

async function runAgainst(
  variants: string[],
  extra: string[] = [],
  fakeOptions: FakeServerOptions = {},
): Promise<LiveRun> {
  const fake = await createFakeServer({ ...fakeOptions, port: 0, variants });
  cleanups.push(() => fake.close());
  const dir = await mkdtemp(join(tmpdir(), "live-targets-"));
  cleanups.push(() => rm(dir, { recursive: true, force: true }));
  const run = await runConformanceCli(
    [
      "--base-url",
      fake.url,
      "--api-key",
      KEY,
      "--agent-id",
      "agent-a",
      "--other-agent-id",
      "agent-b",
      "--other-api-key",
      OTHER_KEY,
      "--stream-error-header",
      "X-Fake-Fault: error-after=1",
      "--header",
      `X-Gateway-Key: ${GATEWAY_SECRET}`,
      "--profile",
      "smoke",
      "--report-dir",
      dir,
      ...extra,
    ],
    RUN_LIMIT_MS,
  );
  const files = await Promise.all((await readdir(dir)).map((name) => readFile(join(dir, name), "utf8")));
  const json = await readFile(join(dir, "conformance.json"), "utf8").catch(() => undefined);
  const output = `${run.stdout}\n${run.stderr}`;
  return {
    code: run.code,
    output,
    report: json === undefined ? undefined : (JSON.parse(json) as ConformanceReport),
    everything: [output, ...files].join("\n"),
  };
}

function expectNoSecrets(expect: ExpectStatic, run: LiveRun): void {
  // The keys are short: look for them as they would be sent, and for the header's value.
  expect(run.everything).not.toContain(`Bearer ${KEY}`);
  expect(run.everything).not.toContain(`Bearer ${OTHER_KEY}`);
  expect(run.everything).not.toContain(GATEWAY_SECRET);
}

const statusOf = (run: LiveRun, id: string) => run.report?.requirements.find((r) => r.id === id)?.status;

// Concurrent: each run mostly waits (Retry-After, a lagging listing, a paced stream), and each has a fake of its own.
describe.concurrent("conforming deployed services pass", () => {
  test.for([
    ["rate-limited", "429"],
    ["overloaded", "503"],
  ] as const)(
    "one that is %s (answering %s) passes after waiting, and the report shows the retries",
    { timeout: TEST_TIMEOUT_MS },
    async ([variant, status], { expect }) => {
      const run = await runAgainst([variant]);
      expect(run.code, run.output).toBe(0);
      const waits =
        run.report?.requirements.flatMap((r) => r.tests).filter((t) => (t.waiting?.retriedStatuses[status] ?? 0) > 0) ??
        [];
      expect(waits.length, run.output).toBeGreaterThan(0);
      expect(run.output).toContain("The target made these checks wait");
      expectNoSecrets(expect, run);
    },
  );

  test(
    "one whose listing lags passes, warning only LIST-11 (read-your-writes)",
    { timeout: TEST_TIMEOUT_MS },
    async ({ expect }) => {
      const run = await runAgainst(["listing-lag"]);
      expect(run.code, run.output).toBe(0);
      expect(run.report?.requirements.filter((r) => r.status === "warn").map((r) => r.id)).toEqual(["LIST-11"]);
      expectNoSecrets(expect, run);
    },
  );

  test(
    "one served under a base path (the URL given with its path) passes without a warning",
    { timeout: TEST_TIMEOUT_MS },
    async ({ expect }) => {
      const run = await runAgainst(["base-path"]);
      expect(run.code, run.output).toBe(0);
      expect(run.report?.counts.warn, run.output).toBe(0);
      expectNoSecrets(expect, run);
    },
  );
});

describe.concurrent("a target slower than the configured timeouts", () => {
  test(
    "is inconclusive, not failed: exit 3, naming the flag that gives it more room",
    { timeout: TEST_TIMEOUT_MS },
    async ({ expect }) => {
      // The first event after 2 s, a plain create as late: far beyond the timeouts, which still
      // leave a listing read (the first request) room on a busy machine.
      const run = await runAgainst(
        ["llm-pacing"],
        ["--request-timeout", "500", "--first-event-timeout", "500", "--max-retries", "0"],
        { pacing: { firstEventMs: 2_000 } },
      );
      expect(run.code, run.output).toBe(3);
      expect(run.report?.counts.fail, run.output).toBe(0);
      expect(run.report?.incomplete.length).toBeGreaterThan(0);
      expect(run.output).toMatch(/Not judged: \d+ MUST requirement\(s\)/);
      expect(run.output).toMatch(/raise --(request|first-event)-timeout/);
      expect(statusOf(run, "RESP-1")).toBe("inconclusive");
      expectNoSecrets(expect, run);
    },
  );
});
