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
import { contestsKeyScope, fingerprint, keyId, keyScopeChoices, strayingOf, type World } from "./world.ts";

export const MAX_GROUP = 6;
export const MAX_WORLDS = 512;

export type StepOne = (world: World, op: Op, context: StepContext) => Step;

/** A violation, with how far the world it ruled out strayed from the spec's plain reading. */
export interface Ruling {
  readonly violation: Violation;
  readonly straying: number;
  readonly depth: number;
  /**
   * It fell on a key both endpoints used, in a world that scoped keys per endpoint: the service
   * may have contradicted that reading itself, and a ruling of the plainer world explains more.
   */
  readonly againstItsChoice: boolean;
}

/**
 * The ruling that explains more: in the plainest world, then the one that went furthest, then
 * the first found, which took overlapping operations in the order they were sent: another
 * order that fails only by its own guess (items "out of order") explains less.
 */
export function better(a: Ruling | undefined, b: Ruling | undefined): Ruling | undefined {
  if (a === undefined) return b;
  if (b === undefined) return a;
  if (a.straying !== b.straying) return a.straying < b.straying ? a : b;
  return b.depth > a.depth ? b : a;
}

export interface GroupResult {
  readonly worlds: readonly World[];
  readonly warnings: readonly Violation[];
  /** The best ruling among the worlds this group ruled out; the group's failure when none is left. */
  readonly ruling?: Ruling;
}

/** How a group of operations is named in a world's orders: its #n, ascending, joined by commas. */
export const groupName = (ops: readonly number[]) => [...ops].sort((a, b) => a - b).join(",");

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

export function applyGroup(worlds: readonly World[], ops: readonly Op[], stepOne: StepOne, messages: ReadonlyMap<string, number>, at = 0): GroupResult {
  const survivors = new Map<string, World>();
  const warnings: Violation[] = [];
  let best: Ruling | undefined;
  // Each world the group may end in, with the orders that lead to it.
  const reached = new Map<string, { world: World; orders: Set<string> }>();
  const indices = new Set(ops.map((op) => op.index));
  for (const order of realTimeOrders(ops)) {
    for (const world of worlds) {
      let current: World[] = [world];
      for (const [depth, op] of order.entries()) {
        const overlapping = new Set([...indices].filter((i) => i !== op.index && ops.some((o) => o.index === i && o.start < op.end && op.start < o.end)));
        const next: World[] = [];
        const choices = op.kind === "create" ? current.flatMap((w) => keyScopeChoices(w, op.who, op.key, op.endpoint)) : current;
        for (const w of choices) {
          const step = stepOne(w, op, { overlapping, messages });
          if ("violation" in step) {
            // A key the other endpoint used too: what went wrong with it may be the sharing this world denies.
            const otherEndpoint = op.kind === "create" ? (op.endpoint === "plain" ? "stream" : "plain") : undefined;
            const onSharedKey = op.kind === "create" && op.key !== null && otherEndpoint !== undefined && w.keyScope === "per-endpoint" && w.keys.has(keyId(op.who, op.key, otherEndpoint));
            const againstItsChoice = onSharedKey || contestsKeyScope(w, step.violation.ops);
            // A world whose order of overlapping exchanges the items contradict was the wrong guess: another one's verdict explains more.
            const guessed = step.violation.byOrder === true ? 0.5 : 0;
            best = better(best, { violation: step.violation, straying: strayingOf(w) + guessed, depth: at + depth, againstItsChoice });
            continue;
          }
          next.push(...step.worlds);
          for (const warning of step.warnings ?? []) if (!warnings.some((w2) => w2.requirement === warning.requirement)) warnings.push(warning);
        }
        current = next;
        if (current.length === 0) break;
      }
      for (const w of current) {
        const id = fingerprint(w);
        const seen = reached.get(id) ?? { world: w, orders: new Set<string>() };
        seen.orders.add(order.map((o) => o.index).join(","));
        reached.set(id, seen);
      }
    }
  }
  // A world only one order reaches remembers that order: a later answer that keeps it decides the race.
  const name = groupName(ops.map((o) => o.index));
  for (const { world, orders } of reached.values()) {
    const [only] = orders;
    const tagged = ops.length > 1 && orders.size === 1 && only !== undefined ? { ...world, orders: new Map([...world.orders, [name, only]]) } : world;
    survivors.set(fingerprint(tagged), tagged);
  }
  return { worlds: [...survivors.values()], warnings, ...(best === undefined ? {} : { ruling: best }) };
}
