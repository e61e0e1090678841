/**
 * The linearizability search, knowing nothing of the service: porcupine's checker, over a model
 * (`SearchModel`, as porcupine's `Model`) that says how one operation steps one state, which
 * states an operation splits one into, when two states are one, and how far a state a violation
 * ruled out strayed from the plainest reading. The service's model is service.ts.
 *
 * Operations that overlapped in time may have taken effect in any order that respects real
 * time (one answered before the other was sent comes first). The group is accepted when some
 * such order, in some state still possible, explains every answer; every state that order
 * ends in stays possible. Groups are small (2 to 4 operations, 6 at most), so every order is
 * tried, as quickcheck-state-machine's `linearise` does for two short branches. Unlike
 * porcupine's, a model's step may leave several states possible (an unknown outcome), so the
 * search carries every state still possible from one group to the next, each with the orders
 * that led to it.
 */
import type { Violation } from "./violation.ts";
import { onceEach } from "./memo.ts";

export const MAX_GROUP = 6;
export const MAX_WORLDS = 512;

/** What the search reads of an operation: its number in the history (#n), when it was sent and when its answer ended. */
export interface Timed {
  readonly index: number;
  readonly start: number;
  readonly end: number;
}

/**
 * What stepping one operation in one state gives: the states it may lead to, with SHOULD-level
 * findings that do not rule the state out; or the violation that does.
 */
export type Stepped<S> =
  | {
      readonly worlds: readonly S[];
      readonly warnings?: readonly Violation[];
      /**
       * A reading of the state the step ruled out while others explained the operation: should
       * those fall later with a verdict that names nothing, this one may explain more.
       */
      readonly ruledOut?: Violation;
    }
  | { readonly violation: Violation };

/**
 * How far a state a violation ruled out strayed from the plainest reading of the spec, and
 * whether the violation may be that state's own doing.
 */
export interface Rank {
  /**
   * The departures from the plainest reading this state took, each true when taken, the weightiest
   * first (compared by `plainer`): a violation in a plainer state explains more.
   */
  readonly straying: readonly boolean[];
  /**
   * The violation may be the state's own choice contradicted (a reading the service may not hold):
   * should every state fall, an earlier ruling of a plainer state explains the failure better.
   */
  readonly againstItsChoice: boolean;
}

/** What the search needs of a model: porcupine's `Model`, for a model that keeps several states possible. */
export interface SearchModel<S, O extends Timed> {
  /**
   * The states `op` is stepped in: `state` itself, or one for each reading of a choice the
   * service has not shown yet and `op` depends on.
   */
  split(state: S, op: O): readonly S[];
  /** `op` stepped in `state`; `overlapping` holds the operations (#n) that overlapped it in time. */
  step(state: S, op: O, overlapping: ReadonlySet<number>): Stepped<S>;
  /** A stable text of the state: two orders that end in states of one fingerprint end in one state. */
  fingerprint(state: S): string;
  /** How a violation that ruled `state` out at `op` ranks against the others, should every state fall. */
  rank(state: S, op: O, violation: Violation): Rank;
}

/**
 * Whether `a` strays less than `b` from the plainest reading: their departures compared
 * weightiest first, the first that differs decides. Neither is plainer when they took the same.
 * Compared in turn, not summed: a weightier departure outweighs any number of lighter ones (the
 * model says why its departures weigh as they do).
 */
export function plainer(a: Rank, b: Rank): boolean {
  for (let i = 0; i < Math.max(a.straying.length, b.straying.length); i++) {
    const took = a.straying[i] === true;
    if (took !== (b.straying[i] === true)) return !took;
  }
  return false;
}

/**
 * A state still possible, with what every order of each group of overlapping operations that
 * reached it agrees on: which of two operations took effect first.
 */
export interface Branch<S> {
  readonly state: S;
  /** By group (its #n, ascending, joined by commas): the pairs every order that led here puts alike, as "#a<#b", space-separated. */
  readonly orders: ReadonlyMap<string, string>;
}

export const branchesOf = <S>(states: readonly S[]): Branch<S>[] =>
  states.map((state) => ({ state, orders: new Map() }));

/** A violation, with how far the state it ruled out strayed from the plainest reading. */
export interface Ruling {
  readonly violation: Violation;
  readonly rank: Rank;
  /** How many operations of the history had been stepped when it was found. */
  readonly depth: number;
}

/**
 * The ruling that explains more: in the plainest state, then the one that went furthest, then
 * the first found, which took overlapping operations in the order they were sent: another
 * order that fails only by its own guess at that order explains less.
 */
export function better(a: Ruling | undefined, b: Ruling | undefined): Ruling | undefined {
  if (a === undefined) return b;
  if (b === undefined) return a;
  if (plainer(a.rank, b.rank)) return a;
  if (plainer(b.rank, a.rank)) return b;
  return b.depth > a.depth ? b : a;
}

export interface GroupResult<S> {
  readonly branches: readonly Branch<S>[];
  readonly warnings: readonly Violation[];
  /** The best ruling among the states this group ruled out; the group's failure when none is left. */
  readonly ruling?: Ruling;
  /** The best of those rulings that named an exchange a page showed in part (Violation.inPart). */
  readonly inPart?: Ruling;
}

/** How a group of operations is named in a branch's orders: its #n, ascending, joined by commas. */
export const groupName = (ops: readonly number[]) => [...ops].sort((a, b) => a - b).join(",");

/** Every order of `ops` in which no operation precedes one that was answered before it was sent. */
export function* realTimeOrders<O extends Timed>(ops: readonly O[]): Generator<O[]> {
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

export function applyGroup<S, O extends Timed>(
  branches: readonly Branch<S>[],
  ops: readonly O[],
  model: SearchModel<S, O>,
  at = 0,
  deadline = Infinity,
): GroupResult<S> | "out of time" {
  // Two branches are one when their states and the orders that led to them are.
  const key = (state: S, orders: ReadonlyMap<string, string>) =>
    [model.fingerprint(state), ordersText(orders)] as const;
  const survivors = new TwoKeyMap<Branch<S>>();
  const warnings: Violation[] = [];
  let best: Ruling | undefined;
  let bestInPart: Ruling | undefined;
  const rule = (ruling: Ruling) => {
    best = better(best, ruling);
    if (ruling.violation.inPart !== undefined) bestInPart = better(bestInPart, ruling);
  };
  // Each branch the group may end in, with the orders that lead to it.
  const reached = new TwoKeyMap<{ branch: Branch<S>; orders: Set<string> }>();
  // What each operation overlapped in time, whatever order the search tries.
  const overlaps = new Map(
    ops.map((op) => [
      op.index,
      new Set(ops.filter((o) => o.index !== op.index && o.start < op.end && op.start < o.end).map((o) => o.index)),
    ]),
  );
  for (const order of realTimeOrders(ops)) {
    if (performance.now() > deadline) return "out of time";
    for (const branch of branches) {
      let current: S[] = [branch.state];
      for (const [depth, op] of order.entries()) {
        const overlapping = overlaps.get(op.index) ?? new Set<number>();
        const next: S[] = [];
        for (const state of current.flatMap((s) => model.split(s, op))) {
          const step = model.step(state, op, overlapping);
          if ("violation" in step) {
            rule({ violation: step.violation, rank: model.rank(state, op, step.violation), depth: at + depth });
            continue;
          }
          if (step.ruledOut !== undefined)
            rule({ violation: step.ruledOut, rank: model.rank(state, op, step.ruledOut), depth: at + depth });
          next.push(...step.worlds);
          for (const warning of step.warnings ?? [])
            if (!warnings.some((w) => w.requirement === warning.requirement)) warnings.push(warning);
        }
        current = next;
        if (current.length === 0) break;
      }
      for (const state of current) {
        const [print, ordersPrint] = key(state, branch.orders);
        const seen = reached.get(print, ordersPrint) ?? {
          branch: { state, orders: branch.orders },
          orders: new Set<string>(),
        };
        seen.orders.add(order.map((o) => o.index).join(","));
        reached.set(print, ordersPrint, seen);
      }
    }
  }
  // A state remembers which of two operations every order that reached it took first: a later
  // answer that keeps it decides their race, whatever order a third one (a listing, a refused
  // rider) could have taken among them.
  const name = groupName(ops.map((o) => o.index));
  for (const { branch, orders } of reached.values()) {
    const agreed = ops.length > 1 ? agreedPrecedence([...orders]) : "";
    const tagged =
      agreed === "" ? branch : { state: branch.state, orders: new Map([...branch.orders, [name, agreed]]) };
    survivors.set(...key(tagged.state, tagged.orders), tagged);
  }
  return {
    branches: [...survivors.values()],
    warnings,
    ...(best === undefined ? {} : { ruling: best }),
    ...(bestInPart === undefined ? {} : { inPart: bestInPart }),
  };
}

/**
 * A map keyed by two texts, nested: one key joined from a state's fingerprint (kilobytes in a long
 * history) and its orders would be copied and hashed on every look-up, which cost more than the
 * model's steps; each text alone is made once per object and keeps its hash.
 */
class TwoKeyMap<V> {
  readonly #outer = new Map<string, Map<string, V>>();
  get(a: string, b: string): V | undefined {
    return this.#outer.get(a)?.get(b);
  }
  set(a: string, b: string, value: V): void {
    const inner = this.#outer.get(a) ?? new Map<string, V>();
    inner.set(b, value);
    this.#outer.set(a, inner);
  }
  *values(): IterableIterator<V> {
    for (const inner of this.#outer.values()) yield* inner.values();
  }
}

/** A branch's orders as text, made once per orders (a branch keeps its orders until a race tags it). */
const ordersText = onceEach((orders: ReadonlyMap<string, string>): string => JSON.stringify([...orders]));

/** The pairs of operations that every one of `orders` (#n, comma-joined) puts in the same order, as "#a<#b", space-separated. */
function agreedPrecedence(orders: readonly string[]): string {
  const positions = orders.map((order) => new Map(order.split(",").map((op, at) => [Number(op), at])));
  const [first] = positions;
  if (first === undefined) return "";
  const ops = [...first.keys()];
  const pairs: string[] = [];
  for (const a of ops)
    for (const b of ops)
      if (a !== b && positions.every((p) => (p.get(a) ?? 0) < (p.get(b) ?? 0))) pairs.push(`${a}<${b}`);
  return pairs.join(" ");
}

/**
 * Whether operation `a` took effect before `b` (both of one judged group), once every branch
 * still possible agrees; undefined while the answers allow either.
 */
export function tookEffectBefore<S>(branches: readonly Branch<S>[], a: number, b: number): boolean | undefined {
  const verdicts = new Set(
    branches.map((branch) => {
      for (const pairs of branch.orders.values()) {
        const listed = ` ${pairs} `;
        if (listed.includes(` ${a}<${b} `)) return true;
        if (listed.includes(` ${b}<${a} `)) return false;
      }
      return undefined;
    }),
  );
  const [only] = verdicts;
  return verdicts.size === 1 ? only : undefined;
}

/** The search's bookkeeping over one history, apart from the states it holds possible. */
export interface Search<O> {
  /** Operations that overlap one another and are not judged yet (the group being built). */
  readonly group: readonly O[];
  readonly groupEnd: number;
  /** The violation that ruled out every state; nothing after it is judged. */
  readonly failed: Violation | undefined;
  /**
   * The best ruling against a state ruled out while others remained: when the last ones fall for
   * their own choice (Rank.againstItsChoice), it may explain the failure better.
   */
  readonly fallen: Ruling | undefined;
  /** The best of the fallen rulings that named an exchange a page showed in part. */
  readonly fallenInPart: Ruling | undefined;
  /** Operations judged so far, for ordering rulings. */
  readonly judged: number;
  /** Set when the history became too uncertain to judge on (too many possible states, a group too large). */
  readonly undecided: string | undefined;
  /** SHOULD-level findings that leave the state possible, the first of each requirement. */
  readonly warnings: readonly Violation[];
  /**
   * When the search gives up (performance.now() time), undefined for never. An offline caller
   * that judges many candidate histories (the shrinker) sets one: a group of six overlapping
   * operations over hundreds of possible states can take seconds to order.
   */
  readonly deadline: number | undefined;
}

export const startSearch = <O>(deadline?: number): Search<O> => ({
  group: [],
  groupEnd: -Infinity,
  failed: undefined,
  fallen: undefined,
  fallenInPart: undefined,
  judged: 0,
  undecided: undefined,
  warnings: [],
  deadline,
});

/** Whether the search judges no more: a failure, or too much uncertainty. */
export const stopped = (search: Search<Timed>) => search.failed !== undefined || search.undecided !== undefined;

/** Whether `op` was sent after every operation of the group being built had ended: that group can grow no more. */
export const closesGroup = (search: Search<Timed>, op: Timed) => search.group.length > 0 && op.start >= search.groupEnd;

/** The search with `op` added to the group being built. */
export const joined = <O extends Timed>(search: Search<O>, op: O): Search<O> => ({
  ...search,
  group: [...search.group, op],
  groupEnd: Math.max(search.groupEnd, op.end),
});

/** The search with `ops` as the group being built (some of its operations left out). */
export const regrouped = <O extends Timed>(search: Search<O>, ops: readonly O[]): Search<O> => ({
  ...search,
  group: ops,
  groupEnd: Math.max(-Infinity, ...ops.map((op) => op.end)),
});

export interface JudgedGroup<S, O> {
  readonly branches: readonly Branch<S>[];
  readonly search: Search<O>;
  /** What judging the group found: the failure (at most one, last) and new warnings. */
  readonly violations: readonly Violation[];
}

/** Judges the group being built, from `branches`; call it when no later operation can overlap it any more. */
export function judgeGroup<S, O extends Timed>(
  branches: readonly Branch<S>[],
  search: Search<O>,
  model: SearchModel<S, O>,
): JudgedGroup<S, O> {
  const cleared: Search<O> = { ...search, group: [], groupEnd: -Infinity };
  if (search.group.length === 0 || stopped(search)) return { branches, search: cleared, violations: [] };
  const ops = [...search.group].sort((a, b) => a.start - b.start || a.index - b.index);
  if (ops.length > MAX_GROUP) {
    return {
      branches,
      search: {
        ...cleared,
        undecided: `${ops.length} operations overlapped (#${ops.map((o) => o.index).join(", #")}): more than ${MAX_GROUP} cannot be ordered`,
      },
      violations: [],
    };
  }
  const result = applyGroup(branches, ops, model, search.judged, search.deadline);
  if (result === "out of time")
    return { branches, search: { ...cleared, undecided: "the model ran out of time" }, violations: [] };
  const warnings = result.warnings.filter((w) => !search.warnings.some((seen) => seen.requirement === w.requirement));
  const allWarnings = [...search.warnings, ...warnings];
  const judged = search.judged + ops.length;
  if (result.branches.length === 0) {
    // An earlier ruling against a plainer state explains it only when the last state fell for its
    // own choice, or with a verdict that names nothing (a total it cannot explain) or rests only on
    // the counting, where the earlier one named an exchange a page showed in part: the last lived
    // on by a guess at the service's counting that the part stored did not need and this failure belies.
    const last = result.ruling;
    const earlier = search.fallen;
    const inPart = search.fallenInPart;
    const belied = last?.violation.onCounting === true && inPart !== undefined && plainer(inPart.rank, last.rank);
    const ownChoice = last?.rank.againstItsChoice === true && earlier !== undefined && plainer(earlier.rank, last.rank);
    const failed = (belied ? inPart : ownChoice ? earlier : last)?.violation;
    if (failed !== undefined)
      return {
        branches: [],
        search: { ...cleared, failed, judged, warnings: allWarnings },
        violations: [...warnings, failed],
      };
  }
  const next: Search<O> = {
    ...cleared,
    warnings: allWarnings,
    fallen: better(search.fallen, result.ruling),
    fallenInPart: better(search.fallenInPart, result.inPart),
    judged,
  };
  if (result.branches.length > MAX_WORLDS) {
    return {
      branches: result.branches,
      search: {
        ...next,
        undecided: `more than ${MAX_WORLDS} states of the service remain possible after #${ops.at(-1)?.index}`,
      },
      violations: warnings,
    };
  }
  return { branches: result.branches, search: next, violations: warnings };
}
