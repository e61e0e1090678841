/**
 * Progress of a run, per family of checks, as a vitest reporter. The families are the console's
 * one list (check-order.ts): the same names, in the same order, as the summary's table at the
 * end, and counted in the same unit, checks, so that a family's last progress line is the first
 * half of its summary line (console-summary.ts adds the requirements its checks judge).
 *
 * On a terminal the family being checked is redrawn in place (`responses  7/12 checks  1 failed`);
 * in CI (`CI` set) or when the output is not a terminal, nothing is redrawn: one plain line is
 * printed per finished family. Either way a finished family leaves one line behind. Only the
 * checks the run selected count (check-plan.ts); a family with none prints nothing.
 *
 * Only family names and counts are printed: never a test's messages, which could quote what a
 * target echoed, and so never a key. The runner's sink scrubs the text anyway.
 */

import type { Reporter, TestCase, TestModule, TestSpecification } from "vitest/node";
import { familyOfCheckFile, fileOf } from "./check-order.ts";

export interface ProgressSink {
  /** Redraw the current family's line in place (a terminal that is not CI). */
  live: boolean;
  write: (text: string) => void;
}

/** Checks by outcome; inconclusive ones (the target never let them finish) apart from the other skips. */
export interface CheckCounts {
  passed: number;
  failed: number;
  skipped: number;
  inconclusive: number;
}

export interface FamilyTally extends CheckCounts {
  family: string;
  total: number;
}

/** `CI=true` (or any value but "", "0", "false") means a CI log, where lines are never redrawn. */
export function isCi(env: NodeJS.ProcessEnv): boolean {
  const value = env.CI?.trim().toLowerCase();
  return value !== undefined && value !== "" && value !== "0" && value !== "false";
}

/** A sink for the process's stdout: live only on a terminal outside CI. */
export function stdoutSink(scrub: (text: string) => string, env: NodeJS.ProcessEnv = process.env): ProgressSink {
  return {
    live: process.stdout.isTTY === true && !isCi(env),
    write: (text) => process.stdout.write(scrub(text)),
  };
}

/** `responses      7/12 checks  1 failed, 2 skipped`; the name padded to `width` so lines align. */
export function tallyLine(tally: FamilyTally, width: number): string {
  const done = tally.passed + tally.failed + tally.skipped + tally.inconclusive;
  const notes = [
    tally.failed > 0 ? `${tally.failed} failed` : "",
    tally.inconclusive > 0 ? `${tally.inconclusive} inconclusive` : "",
    tally.skipped > 0 ? `${tally.skipped} skipped` : "",
  ].filter((n) => n !== "");
  const count = `${done}/${tally.total}`.padStart(2 * Math.max(2, String(tally.total).length) + 1);
  return `${tally.family.padEnd(width)}  ${count} check${tally.total === 1 ? "" : "s"}${notes.length > 0 ? `  ${notes.join(", ")}` : ""}`;
}

/** Erases the terminal line the cursor is on. */
const CLEAR_LINE = "\r\x1b[2K";

/** A test the run's selection took (tests not registered through check() count too). */
const selected = (test: TestCase) => test.meta().conformancePlan?.selected !== false;

/** Where a finished test counts; undefined while it runs. */
function outcomeOf(test: TestCase): keyof CheckCounts | undefined {
  const state = test.result().state;
  if (state === "passed" || state === "failed") return state;
  if (state === "skipped") return test.meta().conformanceCheck?.inconclusive === undefined ? "skipped" : "inconclusive";
  return undefined;
}

function countsOf(tests: readonly TestCase[]): CheckCounts & { total: number } {
  const counts = { total: tests.length, passed: 0, failed: 0, skipped: 0, inconclusive: 0 };
  for (const test of tests) {
    const outcome = outcomeOf(test);
    if (outcome !== undefined) counts[outcome]++;
  }
  return counts;
}

export class ProgressReporter implements Reporter {
  readonly #sink: ProgressSink;
  /** Per module: the family it belongs to and its selected tests' counts. */
  readonly #modules = new Map<
    string,
    {
      family: string;
      counts: CheckCounts & { total: number };
      /** The tests already counted: vitest may report a result again, or after its module ended. */
      counted: Set<string>;
      ended: boolean;
      broken: boolean;
    }
  >();
  #width = 0;

  constructor(sink: ProgressSink) {
    this.#sink = sink;
  }

  onTestRunStart(specifications: ReadonlyArray<TestSpecification>): void {
    for (const spec of specifications) {
      const family = familyOfCheckFile(fileOf(spec.moduleId));
      this.#modules.set(spec.moduleId, {
        family,
        counts: { total: 0, passed: 0, failed: 0, skipped: 0, inconclusive: 0 },
        counted: new Set(),
        ended: false,
        broken: false,
      });
    }
    this.#width = Math.max(0, ...[...this.#modules.values()].map((m) => m.family.length));
  }

  onTestModuleCollected(module: TestModule): void {
    const entry = this.#entry(module);
    entry.counts.total = [...module.children.allTests()].filter(selected).length;
    this.#redraw(entry.family);
  }

  onTestCaseResult(testCase: TestCase): void {
    if (!selected(testCase)) return;
    const entry = this.#entry(testCase.module);
    // One at a time, as they are reported (the module may already hold later results).
    const outcome = outcomeOf(testCase);
    if (outcome === undefined || entry.ended || entry.counted.has(testCase.id)) return;
    entry.counted.add(testCase.id);
    entry.counts[outcome]++;
    this.#redraw(entry.family);
  }

  onTestModuleEnd(module: TestModule): void {
    // Counted again from the module: a test vitest never reported as finished still counts.
    const entry = this.#entry(module);
    entry.counts = countsOf([...module.children.allTests()].filter(selected));
    entry.ended = true;
    entry.broken = module.errors().length > 0;
    const family = [...this.#modules.values()].filter((m) => m.family === entry.family);
    if (family.some((m) => !m.ended)) return;
    const tally = this.#tally(entry.family);
    const broken = family.some((m) => m.broken);
    // A family the selection left without a check has nothing to report.
    if (tally.total === 0 && !broken) {
      if (this.#sink.live) this.#sink.write(CLEAR_LINE);
      return;
    }
    const loadFailed = broken ? "  (a file could not be run; see the summary)" : "";
    this.#sink.write(`${this.#sink.live ? CLEAR_LINE : ""}${tallyLine(tally, this.#width)}${loadFailed}\n`);
  }

  #redraw(family: string): void {
    const tally = this.#tally(family);
    if (this.#sink.live && tally.total > 0) this.#sink.write(`${CLEAR_LINE}${tallyLine(tally, this.#width)}`);
  }

  /** The family's counts, over its modules. */
  #tally(family: string): FamilyTally {
    const tally: FamilyTally = { family, total: 0, passed: 0, failed: 0, skipped: 0, inconclusive: 0 };
    for (const m of this.#modules.values()) {
      if (m.family !== family) continue;
      tally.total += m.counts.total;
      tally.passed += m.counts.passed;
      tally.failed += m.counts.failed;
      tally.skipped += m.counts.skipped;
      tally.inconclusive += m.counts.inconclusive;
    }
    return tally;
  }

  #entry(module: TestModule) {
    let entry = this.#modules.get(module.moduleId);
    if (entry === undefined) {
      entry = {
        family: familyOfCheckFile(fileOf(module.moduleId)),
        counts: { total: 0, passed: 0, failed: 0, skipped: 0, inconclusive: 0 },
        counted: new Set(),
        ended: false,
        broken: false,
      };
      this.#modules.set(module.moduleId, entry);
      this.#width = Math.max(this.#width, entry.family.length);
    }
    return entry;
  }
}
