/**
 * `--rerun-failed FILE`: the requirements an earlier conformance.json reported as failed,
 * warned or inconclusive, and the MUSTs it skipped without the user leaving them out (the ones
 * that made it incomplete, e.g. for a missing setting since given), which become the run's
 * selection. Where the interaction property is what failed a requirement (or left it
 * inconclusive), the selection names the property's family too: selected by ID alone, a
 * requirement runs only its scenario checks, which passed. A file that cannot be read, is not
 * JSON or is not a conformance report stops the run before it starts (exit 2).
 */

import { z } from "zod";
import { readJsonFile } from "./read-json-file.ts";
import { requirementById } from "../../requirements/catalog.ts";
import { INTERACTIONS_FAMILY } from "../checks/runtime/selection.ts";
import type { RequirementStatus } from "../report/report-types.ts";

const RERUN: ReadonlySet<RequirementStatus> = new Set(["fail", "warn", "inconclusive"]);

/** Only what the rerun reads: the rest of the report may differ between versions. */
const PreviousReportSchema = z.object({
  requirements: z.array(
    z.object({
      id: z.string(),
      status: z.enum(["pass", "fail", "warn", "skip", "inconclusive"]),
      excluded: z.boolean().optional(),
      baselined: z.boolean().optional(),
      tests: z.array(z.object({ file: z.string().optional(), status: z.string() })).optional(),
    }),
  ),
});

type PreviousRequirement = z.infer<typeof PreviousReportSchema>["requirements"][number];

/** A skipped MUST the user did not leave out (--only, --exclude, --profile, a baseline entry): it was never judged. */
const unjudgedMust = (r: PreviousRequirement) =>
  r.status === "skip" && r.excluded !== true && r.baselined !== true && requirementById(r.id)?.level === "MUST";

type RerunLoad = { ok: true; ids: string[] } | { ok: false; error: string };

/** The property judged it and did not pass it: rerunning its scenario checks alone would not show the same. */
const propertyFailed = (r: PreviousRequirement) =>
  (r.tests ?? []).some((t) => t.file === INTERACTIONS_FAMILY && (t.status === "fail" || t.status === "inconclusive"));

/** The requirement ids to run again, in the report's order, from an already parsed file; and the property's family when it has to run again. */
export function rerunIds(file: string, json: unknown): RerunLoad {
  const parsed = PreviousReportSchema.safeParse(json);
  if (!parsed.success)
    return { ok: false, error: `--rerun-failed ${file}: not a conformance.json:\n${z.prettifyError(parsed.error)}` };
  const again = parsed.data.requirements.filter((r) => RERUN.has(r.status) || unjudgedMust(r));
  const ids = again.map((r) => r.id);
  // A report of another suite version may name a requirement this one does not judge.
  const unknown = ids.filter((id) => requirementById(id) === undefined);
  if (unknown.length > 0)
    return {
      ok: false,
      error: `--rerun-failed ${file}: names requirement(s) this suite's catalog does not have: ${unknown.join(", ")}`,
    };
  return { ok: true, ids: again.some(propertyFailed) ? [...ids, INTERACTIONS_FAMILY] : ids };
}

/** Reads `path` (named `file` in messages) and picks what to run again. */
export async function loadRerun(file: string, path: string): Promise<RerunLoad> {
  const loaded = await readJsonFile("--rerun-failed", file, path);
  return loaded.ok ? rerunIds(file, loaded.json) : loaded;
}
