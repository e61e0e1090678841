/**
 * What the proof expects of each run, as plain functions of the runs' conformance.json:
 * the plain fake conforms (every requirement judged and passed), every variant passes every MUST, every mutant is killed by its
 * own requirement (a SHOULD mutant by a warning of it), every MUST requirement has a mutant
 * that kills it, and every report judges every service requirement with at least one test.
 * Each problem is one sentence naming the offender.
 */
import { SERVICE_REQUIREMENTS, requirementById, type Level } from "../../requirements/catalog.ts";
import type { ConformanceReport, RequirementReport } from "../report/report-types.ts";
import type { TargetRun } from "./run-targets.ts";
import { labelOf } from "./targets.ts";

/** The profiles' hard ceilings on creates (each costs the operator of a live target money). */
export const CREATE_CEILING = 100;
export const SMOKE_CREATE_CEILING = 25;

/**
 * Warnings a conforming variant is expected to get, each a SHOULD it deliberately does not
 * follow; any other warning of a variant's run is a problem. A run of several variants expects
 * the warnings of each.
 */
export const EXPECTED_WARNINGS: Readonly<Record<string, readonly string[]>> = {
  "epoch-timestamps": ["LIST-8"],
  "listing-lag": ["LIST-11"],
};

/** The warnings a run of these variants is expected to get. */
export function expectedWarnings(variants: readonly string[]): string[] {
  return [...new Set(variants.flatMap((name) => EXPECTED_WARNINGS[name] ?? []))];
}

/** The MUST families a smoke run must exercise: each has at least one MUST judged there. */
const SMOKE_FAMILIES = ["auth", "responses", "idempotency", "streaming", "listing", "delete", "scope"] as const;

const firstLine = (text: string | undefined) => (text ?? "").split("\n")[0]?.slice(0, 300) ?? "";

function describe(requirement: RequirementReport): string {
  return `${requirement.id} ${firstLine(requirement.reason)}`.trim();
}

function ids(report: ConformanceReport, status: RequirementReport["status"]): string[] {
  return report.requirements.filter((r) => r.status === status).map((r) => r.id);
}

/** Problems any run can have: no report, a harness error. */
function runProblems(run: TargetRun, report: ConformanceReport | undefined): string[] {
  const label = labelOf(run.target);
  if (report === undefined) {
    return [
      `${label} produced no conformance.json (exit ${run.exitCode}): ${run.errors.join("; ") || "no reason given"}`,
    ];
  }
  const problems: string[] = [];
  if (run.exitCode === 2)
    problems.push(`${label} could not be judged (exit 2): ${run.errors.join("; ") || "see its report"}`);
  for (const error of report.harnessErrors) problems.push(`${label}: harness error: ${firstLine(error)}`);
  return problems;
}

/** A run's conformance.json lists every service requirement, each with at least one test: no requirement goes unchecked. */
export function coverageProblems(run: TargetRun): string[] {
  // A mutant's run may judge only the requirements its bug breaks (focusMutants, interactions alone).
  if (
    run.report === undefined ||
    (run.target.kind === "mutant" && run.report.requirements.some((r) => r.tests.length === 0))
  )
    return [];
  const label = labelOf(run.target);
  const problems: string[] = [];
  for (const requirement of SERVICE_REQUIREMENTS) {
    const listed = run.report.requirements.find((r) => r.id === requirement.id);
    if (listed === undefined) problems.push(`${label}: conformance.json does not list ${requirement.id}`);
    else if (listed.tests.length === 0) problems.push(`${label}: conformance.json has no test for ${requirement.id}`);
  }
  return problems;
}

function plainProblems(report: ConformanceReport, exitCode: number): string[] {
  const problems: string[] = [];
  if (exitCode !== 0) problems.push(`plain fake exited ${exitCode}, not 0`);
  for (const r of report.requirements) {
    if (r.status === "fail") problems.push(`plain fake failed: ${describe(r)}`);
    if (r.status === "warn") problems.push(`plain fake warned: ${describe(r)}`);
    // Against the reference fake every requirement is judged: a skip there is a check that never runs.
    if (r.status === "skip") problems.push(`plain fake skipped: ${describe(r)}`);
    if (r.status === "inconclusive") problems.push(`plain fake was inconclusive: ${describe(r)}`);
  }
  if (report.creates.budget !== CREATE_CEILING || report.creates.spent > CREATE_CEILING) {
    problems.push(
      `plain fake: the default run spent ${report.creates.spent} creates of a budget of ${report.creates.budget}; the ceiling is ${CREATE_CEILING}`,
    );
  }
  return problems;
}

function smokeProblems(report: ConformanceReport, exitCode: number): string[] {
  const label = "plain fake (smoke profile)";
  const problems: string[] = [];
  if (exitCode !== 0) problems.push(`${label} exited ${exitCode}, not 0`);
  for (const r of report.requirements) {
    if (r.status === "fail" || r.status === "warn" || r.status === "inconclusive")
      problems.push(`${label} ${r.status}: ${describe(r)}`);
  }
  if (report.creates.budget !== SMOKE_CREATE_CEILING || report.creates.spent > SMOKE_CREATE_CEILING) {
    problems.push(
      `${label}: spent ${report.creates.spent} creates of a budget of ${report.creates.budget}; the ceiling is ${SMOKE_CREATE_CEILING}`,
    );
  }
  for (const family of SMOKE_FAMILIES) {
    const judged = report.requirements.some((r) => r.family === family && r.level === "MUST" && r.status === "pass");
    if (!judged) problems.push(`${label}: no MUST of the ${family} family was judged`);
  }
  return problems;
}

function variantProblems(
  name: string,
  variants: readonly string[],
  report: ConformanceReport,
  exitCode: number,
): string[] {
  const problems = report.requirements
    .filter((r) => (r.status === "fail" || r.status === "inconclusive") && r.level === "MUST")
    .map((r) => `variant ${name} ${r.status === "fail" ? "failed" : "was inconclusive"}: ${describe(r)}`);
  const expected = expectedWarnings(variants);
  for (const r of report.requirements.filter((x) => x.status === "warn" && !expected.includes(x.id))) {
    problems.push(`variant ${name} warned unexpectedly: ${describe(r)}`);
  }
  if (exitCode !== 0) problems.push(`variant ${name} exited ${exitCode}, not 0`);
  return problems;
}

export type KillVerdict = "killed" | "killed (warned)" | "killed elsewhere" | "survived" | "no verdict";

export interface KillRow {
  readonly mutant: string;
  /** Who judged: the whole suite, or the interaction property alone. */
  readonly by: "suite" | "interactions";
  /** The requirement the mutant breaks. */
  readonly requirement: string;
  readonly level: Level;
  readonly verdict: KillVerdict;
  readonly exitCode: number;
  readonly seed: number | undefined;
  /** Requirements that failed / warned in the mutant's run. */
  readonly failed: readonly string[];
  readonly warned: readonly string[];
}

/** A mutant's row of the kill matrix. A SHOULD mutant is killed when its requirement is warned. */
export function killRow(run: TargetRun): KillRow | undefined {
  if (run.target.kind !== "mutant") return undefined;
  const { mutant } = run.target;
  const level = requirementById(mutant.requirement)?.level ?? "MUST";
  const report = run.report;
  const by = run.target.interactionsAlone === true ? ("interactions" as const) : ("suite" as const);
  const base = {
    mutant: mutant.name,
    by,
    requirement: mutant.requirement,
    level,
    exitCode: run.exitCode,
    seed: report?.seed,
  };
  if (report === undefined || run.exitCode === 2) {
    return {
      ...base,
      verdict: "no verdict",
      failed: report ? ids(report, "fail") : [],
      warned: report ? ids(report, "warn") : [],
    };
  }
  const failed = ids(report, "fail");
  const warned = ids(report, "warn");
  // Its requirement, or another its bug breaks when met another way (the mutant names them).
  const own = [mutant.requirement, ...(mutant.also ?? [])];
  const verdict: KillVerdict = own.some((id) => failed.includes(id))
    ? "killed"
    : level === "SHOULD" && warned.includes(mutant.requirement)
      ? "killed (warned)"
      : run.exitCode === 1
        ? "killed elsewhere"
        : "survived";
  return { ...base, verdict, failed, warned };
}

const killedByOwn = (row: KillRow) => row.verdict === "killed" || row.verdict === "killed (warned)";

function mutantProblems(run: TargetRun, row: KillRow, report: ConformanceReport): string[] {
  if (killedByOwn(row)) {
    return row.level === "MUST" && run.exitCode !== 1
      ? [`${labelOf(run.target)} exited ${run.exitCode}, not 1, though ${row.requirement} failed`]
      : [];
  }
  const own = report.requirements.find((r) => r.id === row.requirement);
  const how =
    own === undefined
      ? "is not in the report"
      : own.status === "skip"
        ? `was skipped (${firstLine(own.reason)})`
        : own.status === "pass"
          ? "passed"
          : `was reported ${own.status}`;
  const elsewhere = row.failed.length > 0 ? `; the run failed ${row.failed.join(", ")} instead` : "";
  const walks =
    run.walks !== undefined && run.walks > 1
      ? `; ${run.walks} walks, the last with seed ${report.seed}`
      : ` (seed ${report.seed})`;
  return [`${labelOf(run.target)} survived: ${row.requirement} ${how}${elsewhere}${walks}`];
}

/** The problems of one run's verdicts, each naming the target. */
export function judgeRun(run: TargetRun): string[] {
  const report = run.report;
  const problems = runProblems(run, report);
  if (report === undefined) return problems;
  switch (run.target.kind) {
    case "plain":
      return [...problems, ...plainProblems(report, run.exitCode)];
    case "smoke":
      return [...problems, ...smokeProblems(report, run.exitCode)];
    case "variant":
      return [...problems, ...variantProblems(run.target.name, run.target.variants, report, run.exitCode)];
    case "mutant": {
      const row = killRow(run);
      return row === undefined ? problems : [...problems, ...mutantProblems(run, row, report)];
    }
  }
}

export function killMatrix(runs: readonly TargetRun[]): KillRow[] {
  return runs.map(killRow).filter((row): row is KillRow => row !== undefined);
}

export interface MutationScore {
  readonly total: number;
  /** Killed by any requirement (the run failed a MUST, or warned the mutant's own SHOULD). */
  readonly killed: number;
  readonly killedByOwnRequirement: number;
}

/** The score counts each mutant once, by the whole suite's verdict. */
export function mutationScore(all: readonly KillRow[]): MutationScore {
  const rows = all.filter((row) => row.by === "suite");
  return {
    total: rows.length,
    killed: rows.filter((row) => killedByOwn(row) || row.verdict === "killed elsewhere").length,
    killedByOwnRequirement: rows.filter(killedByOwn).length,
  };
}

/** Every MUST service requirement needs a mutant that breaks it and is killed by it. */
export function mustCoverageProblems(rows: readonly KillRow[]): string[] {
  const problems: string[] = [];
  for (const requirement of SERVICE_REQUIREMENTS.filter((r) => r.level === "MUST")) {
    const mine = rows.filter((row) => row.requirement === requirement.id);
    if (mine.length === 0) problems.push(`MUST ${requirement.id} kills nothing: no mutant breaks it`);
    else if (!mine.some(killedByOwn)) {
      problems.push(
        `MUST ${requirement.id} kills nothing: its mutants (${mine.map((row) => `${row.mutant}: ${row.verdict}`).join(", ")}) were not killed by it`,
      );
    }
  }
  return problems;
}

/** Everything the proof found wrong, over all runs. */
export function proofProblems(runs: readonly TargetRun[]): string[] {
  return [...runs.flatMap(judgeRun), ...runs.flatMap(coverageProblems), ...mustCoverageProblems(killMatrix(runs))];
}
