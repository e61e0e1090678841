/**
 * Known failures: `--baseline FILE` (or CONFORMANCE_BASELINE) names a JSON file
 * `{ "entries": [{ "requirement": "LIST-6", "reason": "…", "expires": "2027-01-31" }] }`.
 *
 * - A listed requirement that fails stays `fail` (or `warn`) with `baselined: true` and its
 *   reason, and does not fail the run.
 * - A listed requirement that passes fails the run: the entry is stale and must be removed.
 * - An entry past its expiry date (the day after `expires`, UTC) fails the run and no longer
 *   excuses its failure.
 * - A listed requirement that was skipped or not selected is left as it is.
 * - A file that cannot be read, is not JSON, does not have this shape, lists a requirement twice
 *   or names one the catalog does not have stops the run before it starts (exit 2).
 */

import { readJsonFile } from "./read-json-file.ts";
import { z } from "zod";
import { requirementById } from "../../requirements/catalog.ts";
import type { RequirementReport } from "../report/report-types.ts";
import { incompleteMusts, runResult, type BuiltReport } from "./build-report.ts";

const BaselineEntrySchema = z.strictObject({
  requirement: z.string().regex(/^[A-Z]+-[0-9]+$/, "must be a requirement ID such as LIST-6"),
  reason: z.string().trim().min(1, "must say why the failure is accepted"),
  expires: z.iso.date({ error: "must be a date written YYYY-MM-DD" }),
});

const BaselineFileSchema = z.strictObject({
  entries: z.array(BaselineEntrySchema),
});

export type BaselineEntry = z.infer<typeof BaselineEntrySchema>;

export interface Baseline {
  /** The file as the user named it, for messages. */
  file: string;
  /** By requirement ID. */
  entries: ReadonlyMap<string, BaselineEntry>;
}

type BaselineLoad = { ok: true; baseline: Baseline } | { ok: false; errors: string[] };

/** Validates an already parsed file; every message names the file and the faulty entry. */
export function parseBaseline(file: string, json: unknown): BaselineLoad {
  const parsed = BaselineFileSchema.safeParse(json);
  if (!parsed.success) {
    return { ok: false, errors: [`--baseline ${file}: not a baseline file:\n${z.prettifyError(parsed.error)}`] };
  }
  const errors: string[] = [];
  const entries = new Map<string, BaselineEntry>();
  for (const entry of parsed.data.entries) {
    if (requirementById(entry.requirement) === undefined) {
      errors.push(`--baseline ${file}: ${entry.requirement} is not a requirement of the catalog`);
    } else if (entries.has(entry.requirement)) {
      errors.push(`--baseline ${file}: ${entry.requirement} is listed more than once`);
    } else {
      entries.set(entry.requirement, entry);
    }
  }
  return errors.length > 0 ? { ok: false, errors } : { ok: true, baseline: { file, entries } };
}

/** Reads `path` (named `file` in messages) and validates it. */
export async function loadBaseline(file: string, path: string): Promise<BaselineLoad> {
  const loaded = await readJsonFile("--baseline", file, path);
  return loaded.ok ? parseBaseline(file, loaded.json) : { ok: false, errors: [loaded.error] };
}

/** Dates are compared as YYYY-MM-DD strings; an entry still holds on its `expires` day. */
function isExpired(entry: BaselineEntry, today: string): boolean {
  return entry.expires < today;
}

export function staleMessage(id: string): string {
  return `${id} is listed in the baseline but passed: remove it`;
}

function expiredMessage(entry: BaselineEntry): string {
  return `${entry.requirement}: the baseline entry expired on ${entry.expires} (${entry.reason}): fix the failure or renew the entry`;
}

/**
 * The report with the baseline applied. `today` is the run's UTC date (YYYY-MM-DD).
 * The result is fail when a failure is not excused or the baseline has a problem (an error
 * stays an error).
 */
export function applyBaseline(built: BuiltReport, baseline: Baseline, today: string): BuiltReport {
  const problems: string[] = [];
  const excused: string[] = [];
  const requirements = built.report.requirements.map((requirement): RequirementReport => {
    const entry = baseline.entries.get(requirement.id);
    // A requirement the user left out is neither excused nor stale.
    if (entry === undefined || requirement.excluded === true) return requirement;
    if (requirement.status === "pass") {
      problems.push(staleMessage(requirement.id));
      return requirement;
    }
    if (isExpired(entry, today)) {
      problems.push(expiredMessage(entry));
      return requirement;
    }
    excused.push(requirement.id);
    return { ...requirement, baselined: true, baselineReason: entry.reason, baselineExpires: entry.expires };
  });
  const unexcused = requirements.some((r) => r.status === "fail" && r.baselined !== true);
  const incomplete = incompleteMusts(requirements);
  return {
    ...built,
    report: {
      ...built.report,
      result: runResult({
        harnessError: built.report.result === "error",
        failed: unexcused || problems.length > 0,
        incomplete: incomplete.length > 0,
      }),
      baseline: { file: baseline.file, baselined: excused, problems },
      incomplete,
      requirements,
    },
  };
}
