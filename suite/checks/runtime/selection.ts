/**
 * --only: which requirements a run selects. A check runs when any of its requirement IDs is
 * selected; the report marks the others "not selected" rather than skipped or passed.
 * A check of a family that `--only` may name as a whole (the interaction property's) runs when
 * that family is selected: a requirement selected by ID runs its own scenario checks, not the
 * whole property, unless the property is the only check that judges it.
 */

/** "SSE-*" → /^SSE-.*$/i; "?" matches one character. Nothing else is special. */
export function globToRegExp(glob: string): RegExp {
  const body = glob
    .split("")
    .map((c) => (c === "*" ? ".*" : c === "?" ? "." : c.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")))
    .join("");
  return new RegExp(`^${body}$`, "i");
}

/** Check families `--only` may also name, as a whole: the interaction property's checks. */
export const INTERACTIONS_FAMILY = "interactions";
export const SELECTABLE_FAMILIES: readonly string[] = [INTERACTIONS_FAMILY];

export function isSelected(id: string, only: readonly string[]): boolean {
  return only.length === 0 || only.some((glob) => globToRegExp(glob).test(id));
}

export function isAnySelected(ids: readonly string[], only: readonly string[]): boolean {
  return ids.some((id) => isSelected(id, only));
}

/** Whether --only selects a check family as a whole: nothing given, or a glob its name matches (`interactions`, `*`). */
export function isFamilySelected(family: string, only: readonly string[]): boolean {
  return only.length === 0 || only.some((glob) => globToRegExp(glob).test(family));
}

/**
 * The requirements some check outside any family judges, as the run's check files register
 * (process-wide: one worker runs every file). The interaction property's file runs last
 * (check-order.ts), so by then every scenario check has registered.
 */
const SCENARIO_KEY = Symbol.for("agent-conformance.scenario-requirements");
const scenarioJudged = ((globalThis as Record<symbol, unknown>)[SCENARIO_KEY] ??= new Set<string>()) as Set<string>;

/** Notes that a scenario check (one outside any family) judges these requirements. */
export function noteScenarioCheck(ids: readonly string[]): void {
  for (const id of ids) scenarioJudged.add(id);
}

/**
 * Whether a family's check of requirement `id` runs: its family is selected, or the requirement
 * is selected by ID and no scenario check judges it (the property is then its only check).
 */
export function familyCheckRuns(
  id: string,
  family: string,
  only: readonly string[],
  hasScenarioCheck: (id: string) => boolean,
): boolean {
  return isFamilySelected(family, only) || (isSelected(id, only) && !hasScenarioCheck(id));
}

/** Whether a check of `family` (undefined: a scenario check) runs for requirement `id`, as the files registered so far tell. */
export function selectsFor(id: string, family: string | undefined, only: readonly string[]): boolean {
  return family === undefined
    ? isSelected(id, only)
    : familyCheckRuns(id, family, only, (other) => scenarioJudged.has(other));
}

/** The `[ID ID] name` title a check registers under, for people to read (the IDs travel in its task meta). */
export function checkTitle(ids: readonly string[], name: string): string {
  return `[${ids.join(" ")}] ${name}`;
}
