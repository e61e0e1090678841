/**
 * Runs the checks with vitest's Node API and an inline configuration: the check files only,
 * one worker without isolation (the budget ledger and the connection pool are shared by every
 * check file, and checks run one after another), the run settings provided to that worker, and
 * the JUnit and conformance reporters. The worker is a thread, not a process: a run then
 * starts no Node process of its own, which saves about a fifth of a run's CPU (five runs of
 * `--only AUTH-1` in one process: 12.2 → 8.9 s).
 */

import { CheckOrder } from "./check-order.ts";
import { join } from "node:path";
import { startVitest } from "vitest/node";
import type { Redactor } from "../http/redact.ts";
import { RUN_SETTINGS_KEY, type RunSettings } from "../checks/runtime/run-settings.ts";
import type { ConformanceReporter } from "./conformance-reporter.ts";
import { ProgressReporter, type ProgressSink } from "./progress.ts";
import { scrubbingStream, scrubFile } from "./scrubbed-output.ts";
import { moduleCacheDir } from "./module-cache.ts";

interface VitestRunOptions {
  /** The project root (where node_modules is). */
  root: string;
  /** Absolute directory holding the *.check.ts files. */
  checksDir: string;
  reportDir: string;
  settings: RunSettings;
  reporter: ConformanceReporter;
  /** Where per-family progress goes; none when undefined. */
  progress: ProgressSink | undefined;
  /** Every line vitest prints, and the JUnit file, pass through it. */
  redactor: Redactor;
  /**
   * The runner answers SIGINT and SIGTERM itself (interruption.ts): vitest's own handlers, which
   * end the process at once without a report, are removed as soon as vitest has made them.
   */
  ownSignals?: boolean;
}

/** Beyond the checks' own deadlines, vitest's timeouts are a backstop only. */
const BACKSTOP_MS = 10_000;

export async function runChecks(options: VitestRunOptions): Promise<void> {
  const { settings, redactor } = options;
  const exitCodeBefore = process.exitCode;
  const junitPath = join(options.reportDir, "junit.xml");
  const ours = { SIGINT: new Set(process.listeners("SIGINT")), SIGTERM: new Set(process.listeners("SIGTERM")) };
  // vitest's logger adds them when it is made, before any reporter's onInit: that is where they go.
  const keepOurSignals = {
    onInit: () => {
      for (const signal of ["SIGINT", "SIGTERM"] as const) {
        for (const listener of process.listeners(signal))
          if (!ours[signal].has(listener)) process.off(signal, listener);
      }
    },
  };
  const cacheDir = moduleCacheDir(options.root);
  const vitest = await startVitest(
    "test",
    [],
    {
      config: false,
      root: options.root,
      dir: options.checksDir,
      // .check.js: the built checks of the installed package.
      include: ["**/*.check.{ts,js}"],
      exclude: ["**/node_modules/**"],
      watch: false,
      pool: "threads",
      maxWorkers: 1,
      isolate: false,
      fileParallelism: false,
      sequence: { sequencer: CheckOrder },
      passWithNoTests: true,
      // No results cache: check order stays fixed, and an installed package is not written to.
      cache: false,
      ...(cacheDir === undefined ? {} : { experimental: { fsModuleCache: true, fsModuleCachePath: cacheDir } }),
      testTimeout: settings.checkTimeoutMs + BACKSTOP_MS,
      hookTimeout: settings.checkTimeoutMs + BACKSTOP_MS,
      teardownTimeout: BACKSTOP_MS,
      provide: { [RUN_SETTINGS_KEY]: settings },
      reporters: [
        ...(options.progress === undefined ? [] : [new ProgressReporter(options.progress)]),
        ["junit", { outputFile: junitPath, suiteName: "conformance" }],
        options.reporter,
        ...(options.ownSignals === true ? [keepOurSignals] : []),
      ],
    },
    undefined,
    {
      stdout: scrubbingStream(redactor, (text) => process.stdout.write(text)),
      stderr: scrubbingStream(redactor, (text) => process.stderr.write(text)),
    },
  );
  await vitest.close();
  await scrubFile(junitPath, redactor);
  // vitest sets process.exitCode for failed tests; the runner decides the exit code itself.
  process.exitCode = exitCodeBefore;
}
