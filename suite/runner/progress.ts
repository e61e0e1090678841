/**
 * Progress of a run, per check family (one check file is one family), as a vitest reporter.
 *
 * On a terminal the family being checked is redrawn in place (`responses  7/12  1 failed`);
 * in CI (`CI` set) or when the output is not a terminal, nothing is redrawn: one plain line is
 * printed per finished family. Either way a finished family leaves one line behind.
 *
 * Only family names (file names) and counts are printed: never a test's messages, which could
 * quote what a target echoed, and so never a key. The runner's sink scrubs the text anyway.
 */

import type { Reporter, TestCase, TestModule, TestSpecification } from "vitest/node";
import { familyOfFile } from "./conformance-reporter.ts";

export interface ProgressSink {
  /** Redraw the current family's line in place (a terminal that is not CI). */
  live: boolean;
  write: (text: string) => void;
}

type Outcome = "passed" | "failed" | "skipped";

interface FamilyTally {
  family: string;
  total: number;
  passed: number;
  failed: number;
  skipped: number;
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

/** `responses  7/12  1 failed, 2 skipped`; the name padded to `width` so lines align. */
export function tallyLine(tally: FamilyTally, width: number): string {
  const done = tally.passed + tally.failed + tally.skipped;
  const notes = [
    tally.failed > 0 ? `${tally.failed} failed` : "",
    tally.skipped > 0 ? `${tally.skipped} skipped` : "",
  ].filter((n) => n !== "");
  const count = `${done}/${tally.total}`.padStart(2 * String(tally.total).length + 1);
  return `${tally.family.padEnd(width)}  ${count}${notes.length > 0 ? `  ${notes.join(", ")}` : ""}`;
}

/** Erases the terminal line the cursor is on. */
const CLEAR_LINE = "\r\x1b[2K";

export class ProgressReporter implements Reporter {
  readonly #sink: ProgressSink;
  readonly #tallies = new Map<string, FamilyTally>();
  #width = 0;

  constructor(sink: ProgressSink) {
    this.#sink = sink;
  }

  onTestRunStart(specifications: ReadonlyArray<TestSpecification>): void {
    this.#width = Math.max(0, ...specifications.map((s) => familyOfFile(s.moduleId).length));
  }

  onTestModuleCollected(module: TestModule): void {
    const tally = this.#tally(module);
    tally.total = [...module.children.allTests()].length;
    if (this.#sink.live) this.#sink.write(`${CLEAR_LINE}${tallyLine(tally, this.#width)}`);
  }

  onTestCaseResult(testCase: TestCase): void {
    const tally = this.#tally(testCase.module);
    const state = testCase.result().state;
    if (state === "pending") return;
    tally[state satisfies Outcome]++;
    if (this.#sink.live) this.#sink.write(`${CLEAR_LINE}${tallyLine(tally, this.#width)}`);
  }

  onTestModuleEnd(module: TestModule): void {
    // Counted again from the module: a test vitest never reported as finished still counts.
    const tally = this.#tally(module);
    const states = [...module.children.allTests()].map((t) => t.result().state);
    tally.total = states.length;
    tally.passed = states.filter((s) => s === "passed").length;
    tally.failed = states.filter((s) => s === "failed").length;
    tally.skipped = states.filter((s) => s === "skipped").length;
    const loadFailed = module.errors().length > 0 ? "  (the file could not be run; see the summary)" : "";
    this.#sink.write(`${this.#sink.live ? CLEAR_LINE : ""}${tallyLine(tally, this.#width)}${loadFailed}\n`);
  }

  #tally(module: TestModule): FamilyTally {
    let tally = this.#tallies.get(module.moduleId);
    if (tally === undefined) {
      tally = { family: familyOfFile(module.moduleId), total: 0, passed: 0, failed: 0, skipped: 0 };
      this.#tallies.set(module.moduleId, tally);
    }
    return tally;
  }
}
