/**
 * Operations that overlapped in time may have taken effect in any order that respects real
 * time (one answered before the other was sent comes first). The group is accepted when some
 * such order, in some world still possible, explains every answer; every world that order
 * ends in stays possible. Groups are small (2 to 4 operations, 6 at most), so every order is
 * tried, as quickcheck-state-machine's `linearise` does for two short branches.
 */
import type { Op } from "./operation.ts";
import type { Step, StepContext } from "./step.ts";
import type { Violation } from "./violation.ts";
import { fingerprint, type World } from "./world.ts";

export const MAX_GROUP = 6;
export const MAX_WORLDS = 64;

export type StepOne = (world: World, op: Op, context: StepContext) => Step;

export interface GroupResult {
  readonly worlds: readonly World[];
  readonly warnings: readonly Violation[];
  /** Set when no order explains the group: the violation of the order that went furthest. */
  readonly violation?: Violation;
}

/** Every order of `ops` in which no operation precedes one that was answered before it was sent. */
export function* realTimeOrders(ops: readonly Op[]): Generator<Op[]> {
  if (ops.length <= 1) {
    yield [...ops];
    return;
  }
  for (const [i, op] of ops.entries()) {
    const rest = ops.filter((_, j) => j !== i);
    // `op` may go first only if nothing else was answered before it was sent.
    if (rest.some((other) => other.end <= op.start)) continue;
    for (const tail of realTimeOrders(rest)) yield [op, ...tail];
  }
}

export function applyGroup(worlds: readonly World[], ops: readonly Op[], stepOne: StepOne, messages: ReadonlyMap<string, number>): GroupResult {
  const survivors = new Map<string, World>();
  const warnings: Violation[] = [];
  let best: { violation: Violation; depth: number } | undefined;
  const indices = new Set(ops.map((op) => op.index));
  for (const order of realTimeOrders(ops)) {
    for (const world of worlds) {
      let current: World[] = [world];
      for (const [depth, op] of order.entries()) {
        const overlapping = new Set([...indices].filter((i) => i !== op.index && ops.some((o) => o.index === i && o.start < op.end && op.start < o.end)));
        const next: World[] = [];
        for (const w of current) {
          const step = stepOne(w, op, { overlapping, messages });
          if ("violation" in step) {
            if (best === undefined || depth > best.depth) best = { violation: step.violation, depth };
            continue;
          }
          next.push(...step.worlds);
          for (const warning of step.warnings ?? []) if (!warnings.some((w2) => w2.requirement === warning.requirement)) warnings.push(warning);
        }
        current = next;
        if (current.length === 0) break;
      }
      for (const w of current) survivors.set(fingerprint(w), w);
    }
  }
  const worldsLeft = [...survivors.values()];
  if (worldsLeft.length > 0) return { worlds: worldsLeft, warnings };
  return { worlds: [], warnings, ...(best === undefined ? {} : { violation: best.violation }) };
}
