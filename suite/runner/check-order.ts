import type { TestSequencer, TestSpecification } from "vitest/node";
import { basename } from "node:path";
import { INTERACTIONS_FAMILY } from "../checks/runtime/selection.ts";

/**
 * The families of checks, in the one order the run makes them and the console lists them (the
 * progress while it runs, the summary after): the catalog's order, except listing last, whose
 * costly file (listing-large: the long conversation of ~51 creates) must run after every
 * cheaper check. The create budget is spent first come, first served, so a small --max-creates
 * then skips the one costly check instead of many cheap ones behind it, and the same budget
 * always skips the same checks. The interaction property, which takes whatever creates are
 * left, runs after all of them (and judges requirements of every family).
 */
export const FAMILY_ORDER: readonly string[] = [
  "auth",
  "responses",
  "idempotency",
  "streaming",
  "delete",
  "scope",
  "errors",
  "listing",
];

/** "suite/checks/idempotency.check.ts" → "idempotency"; "listing-large.check.ts" → "listing-large". */
export function fileOf(moduleId: string): string {
  return basename(moduleId)
    .replace(/\.check\.[cm]?[jt]s$/, "")
    .replace(/\.[cm]?[jt]s$/, "");
}

/** The family a check file's checks belong to: "listing-large" → "listing"; a file of no known family is its own. */
export function familyOfCheckFile(file: string): string {
  return FAMILY_ORDER.find((family) => file === family || file.startsWith(`${family}-`)) ?? file;
}

/** Where a family stands in the console's lists: the known families in order, then others by name, the property last. */
export function familyRank(family: string): number {
  if (family === INTERACTIONS_FAMILY) return FAMILY_ORDER.length + 1;
  const known = FAMILY_ORDER.indexOf(family);
  return known === -1 ? FAMILY_ORDER.length : known;
}

/** Sorts families into the order above (others by name among themselves). */
export function byFamilyOrder(a: string, b: string): number {
  return familyRank(a) - familyRank(b) || a.localeCompare(b);
}

/** The key check files run in: family, then a family's costly "-large" file after its others, then path. */
export function checkOrderKey(path: string): string {
  const file = fileOf(path);
  const family = familyOfCheckFile(file);
  return `${String(familyRank(family)).padStart(3, "0")}:${family}:${/-large$/.test(file) ? 1 : 0}:${path}`;
}

/** Check files run in a fixed order: FAMILY_ORDER's. */
export class CheckOrder implements TestSequencer {
  shard(files: TestSpecification[]): TestSpecification[] {
    return files;
  }

  sort(files: TestSpecification[]): TestSpecification[] {
    return [...files].sort((a, b) => checkOrderKey(a.moduleId).localeCompare(checkOrderKey(b.moduleId)));
  }
}
