/**
 * From test outcomes to requirement verdicts (pure, so the rules are unit-tested on synthetic
 * outcomes). A test belongs to every requirement its `[ID …]` prefix names.
 *
 * Per requirement:
 * - not selected by --only → skip ("not selected by --only");
 * - a failing test → fail for a MUST; warn for a SHOULD (fail under --strict);
 * - else a passing test → pass;
 * - else → skip, with the skip reasons of its tests (or "no check covers it").
 * A test that failed because of the harness (HarnessError) judges nothing: it is reported as
 * skipped with the harness error, and the error makes the run's exit code 2.
 */

import { REQUIREMENTS, requirementById, type Requirement } from "../../requirements/catalog.ts";
import type { CheckEvidence } from "../harness/check-scope.ts";
import type { Redactor } from "../harness/redact.ts";
import type { ConformanceReport, RequirementReport, RequirementStatus, TestReport } from "../harness/report-types.ts";
import { idsOfTitle, isSelected } from "../harness/selection.ts";

export interface TestError {
  name?: string | undefined;
  message: string;
}

/** What the reporter saw of one test, stripped of vitest's classes. */
export interface TestOutcome {
  name: string;
  /** The check file's family, e.g. "idempotency". */
  file: string;
  state: "passed" | "failed" | "skipped" | "pending";
  errors: TestError[];
  /** The ctx.skip(note) reason. */
  note?: string | undefined;
  durationMs: number;
  evidence?: CheckEvidence | undefined;
}

export interface ReportContext {
  target: string;
  strict: boolean;
  only: readonly string[];
  runId: string;
  seed: number;
  startedAt: string;
  durationMs: number;
  creates: { budget: number; spent: number };
  cleanup: ConformanceReport["cleanup"];
  /** Harness errors found outside tests (module errors, unhandled errors, journal faults). */
  harnessErrors: readonly string[];
  redactor: Redactor;
}

/** Messages in reports stay readable: the first lines of a long failure are enough here. */
const MESSAGE_CHARS = 8_000;

function shorten(text: string, max = MESSAGE_CHARS): string {
  return text.length <= max ? text : `${text.slice(0, max)}…`;
}

function isHarnessFailure(outcome: TestOutcome): boolean {
  return outcome.state === "failed" && outcome.errors.some((e) => e.name === "HarnessError");
}

function testReport(outcome: TestOutcome, redactor: Redactor): TestReport {
  const base = { name: outcome.name, file: outcome.file, durationMs: Math.round(outcome.durationMs) };
  const firstMessage = () => redactor.scrub(shorten(outcome.errors.map((e) => e.message).join("\n") || "failed without a message"));
  if (isHarnessFailure(outcome)) {
    const harness = outcome.errors.find((e) => e.name === "HarnessError");
    return { ...base, status: "skip", message: `not judged: harness error: ${redactor.scrub(harness?.message ?? "")}` };
  }
  switch (outcome.state) {
    case "passed":
      return { ...base, status: "pass" };
    case "failed": {
      const report: TestReport = { ...base, status: "fail", message: firstMessage() };
      if (outcome.evidence !== undefined) {
        const transcripts = outcome.evidence.transcripts.map((t) => JSON.parse(redactor.scrub(JSON.stringify(t))) as typeof t);
        const timelines = outcome.evidence.timelines.map((events) => events.map((e) => ({ ...e, data: redactor.scrub(e.data) })));
        if (transcripts.length > 0) report.transcripts = transcripts;
        if (timelines.length > 0) report.timelines = timelines;
      }
      return report;
    }
    case "skipped":
      return { ...base, status: "skip", message: outcome.note ?? "skipped" };
    case "pending":
      return { ...base, status: "skip", message: "did not finish (the run was interrupted)" };
  }
}

function verdict(requirement: Requirement, tests: TestReport[], strict: boolean): { status: RequirementStatus; reason?: string } {
  const failed = tests.filter((t) => t.status === "fail");
  if (failed.length > 0) {
    const status = requirement.level === "MUST" || strict ? "fail" : "warn";
    return { status, reason: failed[0]?.message ?? "failed" };
  }
  if (tests.some((t) => t.status === "pass")) return { status: "pass" };
  if (tests.length === 0) return { status: "skip", reason: "no check covers this requirement" };
  const reasons = [...new Set(tests.map((t) => t.message ?? "skipped"))];
  return { status: "skip", reason: reasons.join("; ") };
}

export interface BuiltReport {
  report: ConformanceReport;
  /** Tests that ran and judged something (passed or failed on the target). */
  executed: number;
}

export function buildReport(outcomes: readonly TestOutcome[], context: ReportContext): BuiltReport {
  const harnessErrors = [...context.harnessErrors];
  const byRequirement = new Map<string, TestReport[]>();
  let selectedTests = 0;
  let executed = 0;

  for (const outcome of outcomes) {
    const ids = idsOfTitle(outcome.name);
    if (ids === undefined) {
      harnessErrors.push(`test "${outcome.name}" in ${outcome.file} does not name its requirements ([ID …] prefix); register checks with check()`);
      continue;
    }
    const unknown = ids.filter((id) => requirementById(id) === undefined);
    if (unknown.length > 0) harnessErrors.push(`test "${outcome.name}" names unknown requirement(s) ${unknown.join(", ")}`);
    if (!ids.some((id) => isSelected(id, context.only))) continue;
    selectedTests++;
    const report = testReport(outcome, context.redactor);
    if (report.status !== "skip") executed++;
    if (isHarnessFailure(outcome)) harnessErrors.push(`${outcome.name}: ${report.message ?? ""}`);
    for (const id of ids) {
      if (requirementById(id) === undefined) continue;
      const list = byRequirement.get(id) ?? [];
      list.push(report);
      byRequirement.set(id, list);
    }
  }

  const judged = REQUIREMENTS.filter((r) => r.family !== "client" || byRequirement.has(r.id));
  const requirements: RequirementReport[] = judged.map((requirement) => {
    const base = {
      id: requirement.id,
      level: requirement.level,
      family: requirement.family,
      summary: requirement.summary,
      spec: requirement.spec,
    };
    if (!isSelected(requirement.id, context.only)) {
      return { ...base, status: "skip", reason: "not selected by --only", tests: [] };
    }
    const tests = byRequirement.get(requirement.id) ?? [];
    const { status, reason } = verdict(requirement, tests, context.strict);
    return reason === undefined ? { ...base, status, tests } : { ...base, status, reason, tests };
  });

  const counts = { pass: 0, fail: 0, warn: 0, skip: 0, tests: selectedTests };
  for (const r of requirements) counts[r.status]++;

  return {
    executed,
    report: {
      target: context.target,
      result: counts.fail > 0 ? "fail" : "pass",
      strict: context.strict,
      runId: context.runId,
      seed: context.seed,
      startedAt: context.startedAt,
      durationMs: Math.round(context.durationMs),
      counts,
      creates: context.creates,
      cleanup: context.cleanup,
      harnessErrors: harnessErrors.map((e) => context.redactor.scrub(e)),
      requirements,
    },
  };
}

/** 2: the harness could not judge (errors, or nothing ran); 1: a requirement failed; 0: conforms. */
export function exitCodeOf(built: BuiltReport): 0 | 1 | 2 {
  if (built.report.harnessErrors.length > 0 || built.executed === 0) return 2;
  return built.report.result === "fail" ? 1 : 0;
}
