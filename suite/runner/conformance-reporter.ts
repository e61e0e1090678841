/**
 * The vitest reporter of a conformance run: collects every test's outcome, lets the runner
 * clean up after the last check, then maps the outcomes to requirements (build-report.ts)
 * and writes report-dir/conformance.json.
 */

import { mkdir, writeFile } from "node:fs/promises";
import { basename, dirname } from "node:path";
import type { Reporter, SerializedError, TestModule, TestRunEndReason } from "vitest/node";
import { asInterrupted, markInterrupted } from "./interrupted-report.ts";
import type { StopSignal } from "./interruption.ts";
import type { ConformanceReport } from "../report/report-types.ts";
import { applyBaseline, type Baseline } from "./baseline.ts";
import { buildReport, type BuiltReport, type ReportContext, type TestOutcome } from "./build-report.ts";

interface ConformanceReporterOptions {
  reportPath: string;
  /** Runs after the last check and before the report is built (cleanup, journal totals). */
  finish: () => Promise<ReportContext>;
  /** Known failures (--baseline), applied before the report is written. */
  baseline?: Baseline | undefined;
  /** The signal that stopped the run, if one did, and whether it stopped at once (interrupted-report.ts). */
  interrupted?: () => { signal: StopSignal; atOnce: boolean } | undefined;
}

/** "suite/checks/idempotency.check.ts" → "idempotency". */
export function familyOfFile(moduleId: string): string {
  return basename(moduleId)
    .replace(/\.check\.[cm]?[jt]s$/, "")
    .replace(/\.[cm]?[jt]s$/, "");
}

function errorText(error: SerializedError): string {
  return error.message || error.name || "error without a message";
}

function outcomesOf(modules: ReadonlyArray<TestModule>): { outcomes: TestOutcome[]; moduleErrors: string[] } {
  const outcomes: TestOutcome[] = [];
  const moduleErrors: string[] = [];
  for (const module of modules) {
    const file = familyOfFile(module.moduleId);
    for (const error of module.errors()) moduleErrors.push(`${module.relativeModuleId}: ${errorText(error)}`);
    for (const test of module.children.allTests()) {
      const result = test.result();
      outcomes.push({
        name: test.name,
        requirements: test.meta().requirements,
        file,
        state: result.state,
        errors: (result.errors ?? []).map((e) => ({
          name: typeof e.name === "string" ? e.name : undefined,
          message: errorText(e),
        })),
        note: result.state === "skipped" ? result.note : undefined,
        durationMs: test.diagnostic()?.duration ?? 0,
        evidence: test.meta().conformance,
        check: test.meta().conformanceCheck,
      });
    }
  }
  return { outcomes, moduleErrors };
}

export class ConformanceReporter implements Reporter {
  readonly #options: ConformanceReporterOptions;
  #built: BuiltReport | undefined;
  #failure: string | undefined;
  /** Every check file seen so far: a run stopped at once reports from them, before vitest has ended. */
  readonly #modules = new Set<TestModule>();

  constructor(options: ConformanceReporterOptions) {
    this.#options = options;
  }

  /** The report, once the run ended; undefined if the reporter could not build it. */
  get built(): BuiltReport | undefined {
    return this.#built;
  }

  /** Why the report could not be built or written, if so. */
  get failure(): string | undefined {
    return this.#failure;
  }

  onTestModuleCollected(module: TestModule): void {
    this.#modules.add(module);
  }

  /** Each check's outcome as it stands now (a check still running is "pending"). */
  outcomesNow(): TestOutcome[] {
    return outcomesOf([...this.#modules]).outcomes;
  }

  /** Builds a report of the outcomes so far, for a run that stops before vitest ends. */
  buildNow(context: ReportContext, stop: { signal: StopSignal; atOnce: boolean }): BuiltReport {
    const marked = markInterrupted(this.outcomesNow(), stop.signal, stop.atOnce);
    return asInterrupted(buildReport(marked.outcomes, context), marked.interrupted);
  }

  async onTestRunEnd(
    testModules: ReadonlyArray<TestModule>,
    unhandledErrors: ReadonlyArray<SerializedError>,
    reason: TestRunEndReason,
  ): Promise<void> {
    try {
      const { outcomes, moduleErrors } = outcomesOf(testModules);
      const harnessErrors = [
        ...moduleErrors,
        ...unhandledErrors.map((e) => `unhandled error: ${errorText(e)}`),
        ...(reason === "interrupted" ? ["the run was interrupted"] : []),
      ];
      const context = await this.#options.finish();
      const stop = this.#options.interrupted?.();
      const marked = stop === undefined ? undefined : markInterrupted(outcomes, stop.signal, stop.atOnce);
      const built = buildReport(marked?.outcomes ?? outcomes, {
        ...context,
        harnessErrors: [...context.harnessErrors, ...harnessErrors],
      });
      // Expiry is judged on the run's start date (UTC).
      const baseline = this.#options.baseline;
      const accepted = baseline === undefined ? built : applyBaseline(built, baseline, context.startedAt.slice(0, 10));
      // A stopped run is incomplete whatever it judged by then.
      this.#built = marked === undefined ? accepted : asInterrupted(accepted, marked.interrupted);
      await writeReport(this.#options.reportPath, this.#built.report);
    } catch (error) {
      this.#failure = error instanceof Error ? error.message : String(error);
    }
  }
}

export async function writeReport(path: string, report: ConformanceReport): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  await writeFile(path, `${JSON.stringify(report, null, 2)}\n`);
}
