/**
 * The executable model of the service: the spec as a state machine over observed operations,
 * pure (no I/O, no clock, no randomness). Feed it operations in the order they were sent;
 * operations that overlap in time are judged together (linearize.ts), and an operation whose
 * outcome is unknown keeps both of its possible worlds open until a listing decides (Jepsen's
 * indeterminate operations). It is relative wherever the spec is silent, and holds the service
 * to its own choices once shown (how many messages an exchange adds, whether items show the
 * text sent, their order): consistent with itself, never with the reference fake.
 *
 *   let state = initialState();
 *   for (const op of ops) ({ state } = observe(state, op));
 *   const { violations } = finish(state);
 */
import { applyGroup, better, groupName, MAX_GROUP, MAX_WORLDS, type Ruling } from "./linearize.ts";
import { textKey } from "./items.ts";
import { isAnonymous, type Op } from "./operation.ts";
import { judgePage } from "./page.ts";
import { stepCreate } from "./step-create.ts";
import { stepDelete } from "./step-delete.ts";
import { stepAnonymous } from "./step-anonymous.ts";
import { stepList } from "./step-list.ts";
import type { Step, StepContext } from "./step.ts";
import type { Violation } from "./violation.ts";
import { EMPTY_WORLD, type World } from "./world.ts";

export interface ModelState {
  /** Every state of the service still consistent with what was observed. */
  readonly worlds: readonly World[];
  /** Operations that overlap one another and are not judged yet (the group being built). */
  readonly group: readonly Op[];
  readonly groupEnd: number;
  readonly messages: ReadonlyMap<string, number>;
  /** The violation that ruled out every world; nothing after it is judged. */
  readonly failed: Violation | undefined;
  /**
   * The best ruling against a world ruled out while others remained: when the last ones fall,
   * it may explain the failure better (a service that showed keys shared by both endpoints,
   * then ran one key on both at once, breaks IDEM-5, not the per-endpoint reading's rules).
   */
  readonly fallen: Ruling | undefined;
  /** Operations judged so far, for ordering rulings. */
  readonly judged: number;
  /** Set when the history became too uncertain to judge on (too many possible worlds, a group too large). */
  readonly undecided: string | undefined;
  /** SHOULD-level findings that leave the world possible, the first of each requirement. */
  readonly warnings: readonly Violation[];
}

export interface Observation {
  readonly state: ModelState;
  /** What this call found: the failure (at most one) and new warnings. */
  readonly violations: readonly Violation[];
}

export function initialState(): ModelState {
  return { worlds: [EMPTY_WORLD], group: [], groupEnd: -Infinity, messages: new Map(), failed: undefined, fallen: undefined, judged: 0, undecided: undefined, warnings: [] };
}

export function stepOne(world: World, op: Op, context: StepContext): Step {
  if (isAnonymous(op.who)) return stepAnonymous(world, op);
  switch (op.kind) {
    case "create":
      return stepCreate(world, op, context);
    case "list":
      return stepList(world, op, context);
    case "delete":
      return stepDelete(world, op);
  }
}

/** Feeds one operation; operations must come in the order they were sent. */
export function observe(state: ModelState, sent: Op): Observation {
  if (state.failed !== undefined || state.undecided !== undefined) return { state, violations: [] };
  // Messages are known by their text key, as items are read (items.ts).
  const op: Op = sent.kind === "create" ? { ...sent, message: textKey(sent.message) } : sent;
  let current = state;
  const found: Violation[] = [];
  if (current.group.length > 0 && op.start >= current.groupEnd) {
    const flushed = flush(current);
    current = flushed.state;
    found.push(...flushed.violations);
    if (current.failed !== undefined) return { state: current, violations: found };
  }
  // What a page shows by itself is wrong in every world.
  if (op.kind === "list" && op.outcome.type === "ok") {
    const problem = judgePage(op, op.outcome.value);
    if (problem !== undefined) return { state: { ...current, failed: problem }, violations: [...found, problem] };
  }
  const messages = op.kind === "create" && !current.messages.has(op.message) ? new Map([...current.messages, [op.message, op.index]]) : current.messages;
  return { state: { ...current, messages, group: [...current.group, op], groupEnd: Math.max(current.groupEnd, op.end) }, violations: found };
}

/** Judges the group being built; call it when no later operation can overlap it any more. */
export function flush(state: ModelState): Observation {
  if (state.group.length === 0 || state.failed !== undefined || state.undecided !== undefined) return { state: { ...state, group: [], groupEnd: -Infinity }, violations: [] };
  const ops = [...state.group].sort((a, b) => a.start - b.start || a.index - b.index);
  const cleared = { ...state, group: [], groupEnd: -Infinity };
  if (ops.length > MAX_GROUP) {
    return { state: { ...cleared, undecided: `${ops.length} operations overlapped (#${ops.map((o) => o.index).join(", #")}): more than ${MAX_GROUP} cannot be ordered` }, violations: [] };
  }
  const result = applyGroup(state.worlds, ops, stepOne, state.messages, state.judged);
  const warnings = result.warnings.filter((w) => !state.warnings.some((seen) => seen.requirement === w.requirement));
  const allWarnings = [...state.warnings, ...warnings];
  const judged = state.judged + ops.length;
  if (result.worlds.length === 0) {
    // An earlier ruling against a plainer world explains it only when the last world fell for its own choice.
    const last = result.ruling;
    const earlier = state.fallen;
    const explains = last?.againstItsChoice === true && earlier !== undefined && earlier.straying < last.straying;
    const failed = (explains ? earlier : last)?.violation;
    if (failed !== undefined) return { state: { ...cleared, worlds: [], failed, judged, warnings: allWarnings }, violations: [...warnings, failed] };
  }
  const next: ModelState = { ...cleared, worlds: result.worlds, warnings: allWarnings, fallen: better(state.fallen, result.ruling), judged };
  if (result.worlds.length > MAX_WORLDS) {
    return { state: { ...next, undecided: `more than ${MAX_WORLDS} states of the service remain possible after #${ops.at(-1)?.index}` }, violations: warnings };
  }
  return { state: next, violations: warnings };
}

/**
 * The order (#n, first to last) in which the operations of one judged group took effect, once
 * every world still possible agrees on it; undefined while the answers allow more than one.
 */
export function orderOf(state: ModelState, ops: readonly number[]): readonly number[] | undefined {
  const name = groupName(ops);
  const orders = new Set(state.worlds.map((w) => w.orders.get(name)));
  const [only] = orders;
  return orders.size === 1 && only !== undefined ? only.split(",").map(Number) : undefined;
}

/** Judges whatever is still open at the end of the history. */
export function finish(state: ModelState): Observation {
  return flush(state);
}

/** Feeds a whole history (in the order sent) and returns every violation found, the failure last. */
export function judgeHistory(ops: readonly Op[]): Observation {
  let state = initialState();
  const violations: Violation[] = [];
  for (const op of [...ops].sort((a, b) => a.start - b.start || a.index - b.index)) {
    const observed = observe(state, op);
    state = observed.state;
    violations.push(...observed.violations);
  }
  const finished = finish(state);
  return { state: finished.state, violations: [...violations, ...finished.violations] };
}
