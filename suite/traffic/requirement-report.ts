/**
 * One requirement's verdict over the traffic: `pass` only when some exchange could show it and
 * none broke it; `fail` (or `warn`) when one broke it; `inconclusive` when a verdict held back
 * for listing lag was never decided (held-verdicts.ts), whatever else passed; `not_observed`
 * when no exchange could show it.
 */
import type { CatalogRequirement } from "../../requirements/catalog.ts";
import type { RequirementReport, RequirementStatus, TestReport } from "../report/report-types.ts";
import type { UndecidedVerdict } from "./held-verdicts.ts";
import type { Tally } from "./recorder.ts";
import { UNOBSERVABLE } from "./unobservable.ts";

const VIOLATIONS_SHOWN = 5;

/** "GET …/messages → 200 (#4), GET …/messages → 200 (#6): <what they showed>; <why nothing decided it>". */
export const undecidedLine = (u: UndecidedVerdict) => `${u.exchanges.join(", ")}: ${u.detail}; undecided: ${u.reason}`;

export function requirementReport(
  requirement: CatalogRequirement,
  tally: Tally | undefined,
  undecided: { count: number; kept: readonly UndecidedVerdict[] } | undefined,
  strict: boolean,
): RequirementReport {
  const base = {
    id: requirement.id,
    level: requirement.level,
    family: requirement.family,
    summary: requirement.summary,
    spec: requirement.spec,
  };
  const unobservable = UNOBSERVABLE[requirement.id];
  if (tally === undefined || tally.observed === 0) {
    const reason =
      unobservable === undefined ? "no observed exchange could show it" : `traffic cannot show it: ${unobservable}`;
    return { ...base, status: "not_observed", reason, tests: [] };
  }
  const broken = tally.violations.length + tally.dropped;
  const open = broken === 0 ? (undecided?.count ?? 0) : 0;
  let status: RequirementStatus = "pass";
  if (broken > 0) status = requirement.level === "MUST" || strict ? "fail" : "warn";
  else if (open > 0) status = "inconclusive";
  const tests: TestReport[] = [
    {
      name: `${tally.observed} observed exchange(s) could show it; ${broken} broke it${open > 0 ? `; ${open} undecided` : ""}`,
      file: requirement.family,
      status: broken > 0 ? "fail" : open > 0 ? "inconclusive" : "pass",
      durationMs: 0,
      ...(broken > 0
        ? {
            message: tally.violations
              .slice(0, VIOLATIONS_SHOWN)
              .map((v) => `${v.exchange}: ${v.detail}`)
              .join("\n"),
            transcripts: tally.violations.slice(0, VIOLATIONS_SHOWN).flatMap((v) => v.transcripts.slice(0, 1)),
          }
        : open > 0
          ? { message: (undecided?.kept ?? []).slice(0, VIOLATIONS_SHOWN).map(undecidedLine).join("\n") }
          : {}),
    },
  ];
  const first = undecided?.kept[0];
  const reason =
    broken > 0
      ? `${broken} of ${tally.observed} observed exchange(s) broke it; first: ${tally.violations[0]?.exchange}: ${tally.violations[0]?.detail}`
      : open > 0 && first !== undefined
        ? `undecided: ${open} verdict(s) held back for listing lag that nothing decided; first: ${undecidedLine(first)}`
        : undefined;
  return { ...base, status, ...(reason === undefined ? {} : { reason }), tests };
}
