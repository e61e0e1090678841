/**
 * The proof's results as data (reports/verify-suite.json) and as text (npm run verify-suite):
 * the kill matrix, the mutation score, and the verdicts on the plain fake and the variants.
 */
import { labelOf } from "./targets.ts";
import { killMatrix, mutationScore, proofProblems, type KillRow, type MutationScore } from "./judge.ts";
import type { TargetRun } from "./run-targets.ts";

export interface LegalRow {
  readonly name: string;
  readonly kind: "plain" | "smoke" | "variant";
  /** How messages name it: "plain fake", "variant crlf". */
  readonly label: string;
  readonly verdict: "pass" | "fail" | "no verdict";
  readonly exitCode: number;
  readonly seed: number | undefined;
  readonly failed: readonly string[];
  readonly warned: readonly string[];
  readonly creates: number | undefined;
}

export interface ProofSummary {
  readonly generatedAt: string;
  readonly wallMs: number;
  readonly lanes: number;
  readonly score: MutationScore;
  readonly mutants: readonly KillRow[];
  readonly legal: readonly LegalRow[];
  /** Everything the gate would fail on; empty when the suite is proven. */
  readonly problems: readonly string[];
}

function legalRow(run: TargetRun): LegalRow | undefined {
  if (run.target.kind === "mutant") return undefined;
  const report = run.report;
  const failed = report?.requirements.filter((r) => r.status === "fail").map((r) => r.id) ?? [];
  const warned = report?.requirements.filter((r) => r.status === "warn").map((r) => r.id) ?? [];
  const verdict = report === undefined || run.exitCode === 2 ? "no verdict" : run.exitCode === 0 ? "pass" : "fail";
  return {
    name: run.target.name,
    kind: run.target.kind,
    label: labelOf(run.target),
    verdict,
    exitCode: run.exitCode,
    seed: report?.seed,
    failed,
    warned,
    creates: report?.creates.spent,
  };
}

export function summarise(runs: readonly TargetRun[], wallMs: number, lanes: number): ProofSummary {
  const mutants = killMatrix(runs);
  return {
    generatedAt: new Date().toISOString(),
    wallMs: Math.round(wallMs),
    lanes,
    score: mutationScore(mutants),
    mutants,
    legal: runs.map(legalRow).filter((row): row is LegalRow => row !== undefined),
    problems: proofProblems(runs),
  };
}

const percent = (part: number, whole: number) => (whole === 0 ? "n/a" : `${((100 * part) / whole).toFixed(1)}%`);

/** The requirements a row failed or warned: `*` marks the mutant's own, `~` a warning. */
function marked(row: KillRow): string {
  const own = (id: string) => (id === row.requirement ? "*" : "");
  return (
    [...row.failed.map((id) => `${own(id)}${id}`), ...row.warned.map((id) => `~${own(id)}${id}`)].join(" ") ||
    "(nothing)"
  );
}

/** The text npm run verify-suite prints. */
export function summaryText(summary: ProofSummary): string[] {
  const name = (row: KillRow) => (row.by === "interactions" ? `${row.mutant} (interactions alone)` : row.mutant);
  const width = Math.max(6, ...summary.mutants.map((row) => name(row).length));
  const lines = [
    `Kill matrix: what failed in each mutant's run (* the mutant's own requirement, ~ a warning;`,
    `a SHOULD mutant is killed when its own requirement is warned; "interactions alone" is the`,
    `run of --only interactions, the interaction property by itself)`,
    "",
    `${"mutant".padEnd(width)}  ${"breaks".padEnd(8)}  ${"verdict".padEnd(16)}  failed / warned`,
  ];
  for (const row of summary.mutants) {
    lines.push(`${name(row).padEnd(width)}  ${row.requirement.padEnd(8)}  ${row.verdict.padEnd(16)}  ${marked(row)}`);
  }
  const { total, killed, killedByOwnRequirement } = summary.score;
  lines.push(
    "",
    `Mutation score: ${killed}/${total} killed (${percent(killed, total)}); ` +
      `${killedByOwnRequirement}/${total} killed by their own requirement (${percent(killedByOwnRequirement, total)})`,
    "",
    "Conforming targets (each must pass every MUST):",
  );
  const legalLabel = (row: LegalRow) => row.label;
  const legalWidth = Math.max(6, ...summary.legal.map((row) => legalLabel(row).length));
  for (const row of summary.legal) {
    const warned = row.warned.length > 0 ? `  warned ${row.warned.join(" ")}` : "";
    const failed = row.failed.length > 0 ? `  failed ${row.failed.join(" ")}` : "";
    const creates = row.creates === undefined ? "" : `  ${row.creates} creates`;
    lines.push(`${legalLabel(row).padEnd(legalWidth)}  ${row.verdict.padEnd(10)}${failed}${warned}${creates}`);
  }
  lines.push(
    "",
    `${summary.mutants.length + summary.legal.length} runs, ${summary.lanes} at a time, in ${(summary.wallMs / 1000).toFixed(1)} s`,
  );
  if (summary.problems.length === 0) lines.push("", "The suite is proven: no problem found.");
  else lines.push("", `${summary.problems.length} problem(s):`, ...summary.problems.map((p) => `  - ${p}`));
  return lines;
}
