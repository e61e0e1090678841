/**
 * From test outcomes to requirement verdicts (pure, so the rules are unit-tested on synthetic
 * outcomes). A test belongs to every requirement check() put in its task meta.
 *
 * Per requirement:
 * - not selected by --only, or matched by --exclude → skip, excluded by the user;
 * - a failing test → fail for a MUST; warn for a SHOULD (fail under --strict);
 * - else an inconclusive test (the target never let it finish) → inconclusive;
 * - else a passing test → pass;
 * - else → skip, with the skip reasons of its tests (or "no check covers it"); excluded when
 *   every test was left out by the user's choice (--profile).
 * A test that failed because of the harness (HarnessError) judges nothing: it is reported as
 * skipped with the harness error, and the error makes the run's exit code 2.
 * A test of the interaction property counts for a requirement only when the property was
 * selected for it (selection.ts: its family named, or no scenario check judges the requirement).
 * Under --shard a requirement outside this shard's share counts the interaction property's
 * tests only (the property runs in every shard); when they judged nothing it is skipped,
 * excluded, as judged in the shard whose share holds it.
 */

import { REQUIREMENTS, requirementById, type Requirement } from "../../requirements/catalog.ts";
import type { CheckEvidence, CheckMeta } from "../checks/runtime/check-scope.ts";
import type { Redactor } from "../http/redact.ts";
import type { ConformanceReport, RequirementReport, RequirementStatus, TestReport } from "../report/report-types.ts";
import { familyCheckRuns, INTERACTIONS_FAMILY, isSelected } from "../checks/runtime/selection.ts";
import { shardOf, type ShardPlan } from "./shards.ts";
import type { SuiteVersion } from "./suite-version.ts";

interface TestError {
  name?: string | undefined;
  message: string;
}

/** What the reporter saw of one test, stripped of vitest's classes. */
export interface TestOutcome {
  name: string;
  /** The requirements the test judges, from its task meta; undefined for a test check() did not register. */
  requirements?: readonly string[] | undefined;
  /** The check file's family, e.g. "idempotency". */
  file: string;
  state: "passed" | "failed" | "skipped" | "pending";
  errors: TestError[];
  /** The ctx.skip(note) reason. */
  note?: string | undefined;
  durationMs: number;
  evidence?: CheckEvidence | undefined;
  /** Inconclusive or excluded, and what the target made the check wait for. */
  check?: CheckMeta | undefined;
}

export interface ReportContext {
  target: string;
  strict: boolean;
  only: readonly string[];
  /** --exclude globs (with --rerun-failed's choice folded into `only`). */
  exclude: readonly string[];
  runId: string;
  seed: number;
  startedAt: string;
  durationMs: number;
  creates: { budget: number; spent: number };
  cleanup: ConformanceReport["cleanup"];
  /** Harness errors found outside tests (module errors, unhandled errors, journal faults). */
  harnessErrors: readonly string[];
  redactor: Redactor;
  /** --shard: this run's number, the shard count, and every shard's share. */
  shard?: ShardPlan | undefined;
  suite?: SuiteVersion | undefined;
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
  const waiting = outcome.check?.waiting;
  const base = {
    name: outcome.name,
    file: outcome.file,
    durationMs: Math.round(outcome.durationMs),
    ...(waiting === undefined ? {} : { waiting }),
  };
  const firstMessage = () =>
    redactor.scrub(shorten(outcome.errors.map((e) => e.message).join("\n") || "failed without a message"));
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
        const transcripts = outcome.evidence.transcripts.map(
          (t) => JSON.parse(redactor.scrub(JSON.stringify(t))) as typeof t,
        );
        const timelines = outcome.evidence.timelines.map((events) =>
          events.map((e) => ({ ...e, data: redactor.scrub(e.data) })),
        );
        if (transcripts.length > 0) report.transcripts = transcripts;
        const counterexample = outcome.evidence.counterexample;
        if (counterexample !== undefined)
          report.counterexample = JSON.parse(redactor.scrub(JSON.stringify(counterexample))) as typeof counterexample;
        if (timelines.length > 0) report.timelines = timelines;
      }
      return report;
    }
    case "skipped": {
      const inconclusive = outcome.check?.inconclusive;
      if (inconclusive !== undefined)
        return { ...base, status: "inconclusive", message: redactor.scrub(shorten(inconclusive)) };
      if (outcome.check?.excluded !== undefined)
        return { ...base, status: "skip", message: outcome.check.excluded, excluded: true };
      return { ...base, status: "skip", message: outcome.note ?? "skipped" };
    }
    case "pending":
      return { ...base, status: "skip", message: "did not finish (the run was interrupted)" };
  }
}

interface Verdict {
  status: RequirementStatus;
  reason?: string;
  excluded?: boolean;
}

function verdict(requirement: Requirement, tests: TestReport[], strict: boolean): Verdict {
  const failed = tests.filter((t) => t.status === "fail");
  if (failed.length > 0) {
    const status = requirement.level === "MUST" || strict ? "fail" : "warn";
    return { status, reason: failed[0]?.message ?? "failed" };
  }
  // Evidence the target withheld is not a pass, even beside passing tests.
  const inconclusive = tests.find((t) => t.status === "inconclusive");
  if (inconclusive !== undefined) return { status: "inconclusive", reason: inconclusive.message ?? "inconclusive" };
  if (tests.some((t) => t.status === "pass")) return { status: "pass" };
  if (tests.length === 0) return { status: "skip", reason: "no check covers this requirement" };
  const reasons = [...new Set(tests.map((t) => t.message ?? "skipped"))];
  const excluded = tests.every((t) => t.excluded === true);
  return excluded
    ? { status: "skip", reason: reasons.join("; "), excluded }
    : { status: "skip", reason: reasons.join("; ") };
}

/** Why the user left a requirement out, if they did (--only, --exclude). */
function exclusionOf(id: string, context: ReportContext, selectedByFamily: ReadonlySet<string>): string | undefined {
  if (!isSelected(id, context.only) && !selectedByFamily.has(id)) return "not selected by --only";
  if (context.exclude.length > 0 && isSelected(id, context.exclude)) return "excluded by --exclude";
  return undefined;
}

/** MUSTs skipped or inconclusive that the user did not exclude (nor accept in a baseline). */
export function incompleteMusts(requirements: readonly RequirementReport[]): ConformanceReport["incomplete"] {
  return requirements
    .filter(
      (r) =>
        r.level === "MUST" &&
        (r.status === "skip" || r.status === "inconclusive") &&
        r.excluded !== true &&
        r.baselined !== true,
    )
    .map((r) => ({ id: r.id, status: r.status as "skip" | "inconclusive", reason: r.reason ?? r.status }));
}

/**
 * The run's result, which the exit code follows: error (2) when the harness could not judge,
 * fail (1), incomplete (3) when an unexcluded MUST went unjudged, pass (0).
 */
export function runResult(facts: {
  harnessError: boolean;
  failed: boolean;
  incomplete: boolean;
}): ConformanceReport["result"] {
  if (facts.harnessError) return "error";
  if (facts.failed) return "fail";
  return facts.incomplete ? "incomplete" : "pass";
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
  // `--only interactions` selects a check family by name, and with it the requirements its checks judge.
  const selectedByFamily = new Set(
    outcomes
      .filter((o) => context.only.length > 0 && isSelected(o.file, context.only))
      .flatMap((o) => o.requirements ?? []),
  );

  // Under --shard, another shard's requirement counts here only by the interaction property's tests.
  const share = context.shard?.shares[context.shard.index - 1];
  const inShare = (id: string, outcome: TestOutcome) =>
    share === undefined || outcome.file === INTERACTIONS_FAMILY || share.includes(id);
  // The property's test of a requirement selected by ID alone does not count beside its scenario checks.
  const scenarioJudged = new Set(
    outcomes.filter((o) => o.file !== INTERACTIONS_FAMILY).flatMap((o) => o.requirements ?? []),
  );
  const taken = (id: string, outcome: TestOutcome) =>
    outcome.file !== INTERACTIONS_FAMILY ||
    familyCheckRuns(id, INTERACTIONS_FAMILY, context.only, (other) => scenarioJudged.has(other));
  const countsHere = (id: string, outcome: TestOutcome) => inShare(id, outcome) && taken(id, outcome);

  for (const outcome of outcomes) {
    const ids = outcome.requirements;
    if (ids === undefined || ids.length === 0) {
      harnessErrors.push(
        `test "${outcome.name}" in ${outcome.file} does not name its requirements; register checks with check()`,
      );
      continue;
    }
    const unknown = ids.filter((id) => requirementById(id) === undefined);
    if (unknown.length > 0)
      harnessErrors.push(`test "${outcome.name}" names unknown requirement(s) ${unknown.join(", ")}`);
    if (ids.every((id) => exclusionOf(id, context, selectedByFamily) !== undefined || !countsHere(id, outcome)))
      continue;
    selectedTests++;
    const report = testReport(outcome, context.redactor);
    // An inconclusive check ran: the target, not the harness, kept it from a verdict.
    if (report.status !== "skip") executed++;
    if (isHarnessFailure(outcome)) harnessErrors.push(`${outcome.name}: ${report.message ?? ""}`);
    for (const id of ids) {
      if (requirementById(id) === undefined || !countsHere(id, outcome)) continue;
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
    const exclusion = exclusionOf(requirement.id, context, selectedByFamily);
    if (exclusion !== undefined) return { ...base, status: "skip", reason: exclusion, excluded: true, tests: [] };
    const tests = byRequirement.get(requirement.id) ?? [];
    const owner =
      share === undefined || share.includes(requirement.id) || context.shard === undefined
        ? undefined
        : shardOf(context.shard, requirement.id);
    if (owner !== undefined && tests.every((t) => t.status === "skip")) {
      return {
        ...base,
        status: "skip",
        reason: `judged in shard ${owner}/${context.shard?.count ?? 0}`,
        excluded: true,
        tests: [],
      };
    }
    return { ...base, ...verdict(requirement, tests, context.strict), tests };
  });

  const counts = { pass: 0, fail: 0, warn: 0, skip: 0, inconclusive: 0, tests: selectedTests };
  // The active suite never gives not_observed: that is the traffic judge's status.
  for (const r of requirements) if (r.status !== "not_observed") counts[r.status]++;
  const incomplete = incompleteMusts(requirements);
  const scrubbedHarnessErrors = harnessErrors.map((e) => context.redactor.scrub(e));
  const interactions = interactionsOf(outcomes, context.redactor);
  // More shards than requirements leave a share empty: a shard that then executes nothing has not failed to run.
  const nothingToRun = share !== undefined && share.length === 0;

  return {
    executed,
    report: {
      target: context.target,
      ...(context.suite === undefined ? {} : { suite: { ...context.suite } }),
      result: runResult({
        harnessError: scrubbedHarnessErrors.length > 0 || (executed === 0 && !nothingToRun),
        failed: counts.fail > 0,
        incomplete: incomplete.length > 0,
      }),
      strict: context.strict,
      runId: context.runId,
      seed: context.seed,
      startedAt: context.startedAt,
      durationMs: Math.round(context.durationMs),
      counts,
      creates: context.creates,
      cleanup: context.cleanup,
      harnessErrors: scrubbedHarnessErrors,
      incomplete,
      ...(context.shard === undefined ? {} : { shard: { index: context.shard.index, count: context.shard.count } }),
      ...(interactions === undefined ? {} : { interactions }),
      requirements,
    },
  };
}

/** What the interaction property explored: carried by the check that ran it; absent when it did not run. */
function interactionsOf(outcomes: readonly TestOutcome[], redactor: Redactor): ConformanceReport["interactions"] {
  const summary = outcomes.find((o) => o.check?.interactions !== undefined)?.check?.interactions;
  return summary === undefined ? undefined : (JSON.parse(redactor.scrub(JSON.stringify(summary))) as typeof summary);
}

const EXIT_CODES = { pass: 0, fail: 1, error: 2, incomplete: 3 } as const;

/**
 * The exit code of a result: 2 the harness could not judge (errors, or nothing ran); 1 a
 * requirement failed; 3 nothing failed, but a MUST was skipped or inconclusive without the user
 * excluding it; 0 conforms.
 */
export function exitCodeOfResult(result: ConformanceReport["result"]): 0 | 1 | 2 | 3 {
  return EXIT_CODES[result];
}

export function exitCodeOf(built: BuiltReport): 0 | 1 | 2 | 3 {
  return exitCodeOfResult(built.report.result);
}
