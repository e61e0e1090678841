import type { TestSequencer, TestSpecification } from "vitest/node";

/**
 * Check files run in a fixed order: alphabetical, with the costly `*-large.check.*` files next to
 * last and the interaction property, which takes whatever creates are left, last of all.
 * The create budget is spent first come, first served, so a small --max-creates then skips
 * the one costly check instead of many cheap ones behind it, and the same budget always
 * skips the same checks.
 */
export class CheckOrder implements TestSequencer {
  shard(files: TestSpecification[]): TestSpecification[] {
    return files;
  }

  sort(files: TestSpecification[]): TestSpecification[] {
    return [...files].sort((a, b) => orderKey(a.moduleId).localeCompare(orderKey(b.moduleId)));
  }
}

function orderKey(path: string): string {
  // The interaction property takes what the budget leaves, so it runs after every other check.
  const rank = /\/interactions\.check\.[jt]s$/.test(path) ? 2 : /-large\.check\.[jt]s$/.test(path) ? 1 : 0;
  return `${rank}:${path}`;
}
