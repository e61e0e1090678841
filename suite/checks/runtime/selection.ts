/**
 * --only: which requirements a run selects. A check runs when any of its requirement IDs is
 * selected; the report marks the others "not selected" rather than skipped or passed.
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

/** The `[ID ID] name` title a check registers under, for people to read (the IDs travel in its task meta). */
export function checkTitle(ids: readonly string[], name: string): string {
  return `[${ids.join(" ")}] ${name}`;
}
