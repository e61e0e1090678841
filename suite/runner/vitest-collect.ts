/**
 * The checks a run would make, without running one: vitest collects the check files (it
 * evaluates them, so each check() registers its test and its plan) under the same settings
 * and order as a run, and no test body runs, so nothing is sent.
 */

import { createVitest } from "vitest/node";
import type { Redactor } from "../http/redact.ts";
import type { CheckPlan } from "../checks/runtime/check-plan.ts";
import { RUN_SETTINGS_KEY, type RunSettings } from "../checks/runtime/run-settings.ts";
import { CheckOrder, checkOrderKey, fileOf } from "./check-order.ts";
import { scrubbingStream } from "./scrubbed-output.ts";

/** One registered check, as its file declared it. */
export interface CollectedCheck {
  readonly name: string;
  /** The check file's family, e.g. "streaming". */
  readonly file: string;
  readonly requirements: readonly string[];
  /** Undefined for a test check() did not register. */
  readonly plan: CheckPlan | undefined;
}

export interface Collected {
  /** In the order a run makes them (check-order.ts), then in file order. */
  readonly checks: readonly CollectedCheck[];
  /** Check files that could not be evaluated, and errors outside them. */
  readonly errors: readonly string[];
}

export async function collectChecks(options: {
  root: string;
  checksDir: string;
  settings: RunSettings;
  redactor: Redactor;
}): Promise<Collected> {
  const { redactor } = options;
  const vitest = await createVitest(
    "test",
    {
      config: false,
      root: options.root,
      dir: options.checksDir,
      include: ["**/*.check.{ts,js}"],
      exclude: ["**/node_modules/**"],
      watch: false,
      pool: "threads",
      maxWorkers: 1,
      isolate: false,
      fileParallelism: false,
      // The run's order: the interaction property's file learns which requirements the others judge.
      sequence: { sequencer: CheckOrder },
      passWithNoTests: true,
      cache: false,
      provide: { [RUN_SETTINGS_KEY]: options.settings },
      reporters: [],
    },
    undefined,
    {
      stdout: scrubbingStream(redactor, (text) => process.stdout.write(text)),
      stderr: scrubbingStream(redactor, (text) => process.stderr.write(text)),
    },
  );
  try {
    const { testModules, unhandledErrors } = await vitest.collect();
    const modules = [...testModules].sort((a, b) => checkOrderKey(a.moduleId).localeCompare(checkOrderKey(b.moduleId)));
    const errors = [
      ...modules.flatMap((m) => m.errors().map((e) => `${m.relativeModuleId}: ${e.message}`)),
      ...unhandledErrors.map((e) => (e instanceof Error ? e.message : String(e))),
    ];
    const checks = modules.flatMap((module) =>
      [...module.children.allTests()].map((test) => ({
        name: test.name,
        file: fileOf(module.moduleId),
        requirements: test.meta().requirements ?? [],
        plan: test.meta().conformancePlan,
      })),
    );
    return { checks, errors: errors.map((e) => redactor.scrub(e)) };
  } finally {
    await vitest.close();
  }
}
