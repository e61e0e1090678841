/**
 * The client-violation summary `npm run fake` prints on stderr when it stops: a line per violated
 * requirement, with the counts of every session added up.
 */
import type { ClientViolationCount } from "../../schemas/index.ts";
import { requirementById } from "../../requirements/catalog.ts";

/**
 * The lines `npm run fake` prints on exit: one per violated requirement with its count,
 * or one saying there were none.
 */
export function summaryLines(counts: readonly ClientViolationCount[]): string[] {
  if (counts.length === 0) return ["client violations: none"];
  const total = counts.reduce((sum, c) => sum + c.count, 0);
  return [
    `client violations: ${total} (details: GET /__fake/client-violations while the fake runs)`,
    ...counts.map((c) => `  ${c.requirement} ${requirementById(c.requirement)?.level ?? ""} ${c.title}: ${c.count}`),
  ];
}

/** The counts of several sessions as one list, a requirement's counts added up. */
export function mergedCounts(lists: readonly (readonly ClientViolationCount[])[]): ClientViolationCount[] {
  const merged = new Map<string, ClientViolationCount>();
  for (const counts of lists) {
    for (const count of counts) {
      const seen = merged.get(count.requirement);
      merged.set(count.requirement, seen === undefined ? { ...count } : { ...seen, count: seen.count + count.count });
    }
  }
  return [...merged.values()].sort((a, b) => a.requirement.localeCompare(b.requirement, "en", { numeric: true }));
}
