/**
 * The executable model of the service: the spec as a state machine over observed operations,
 * pure (no I/O, no clock, no randomness). Feed it operations in the order they were sent;
 * operations that overlap in time are judged together (the search, linearize.ts, over the
 * service's model, service.ts), and an operation whose outcome is unknown keeps both of its
 * possible worlds open until a listing decides (Jepsen's indeterminate operations). It is
 * relative wherever the spec is silent, and holds the service to its own choices once shown (how
 * many messages an exchange adds, whether items show the text sent, their order): consistent
 * with itself, never with the reference fake.
 *
 *   let state = initialState();
 *   for (const op of ops) ({ state } = observe(state, op));
 *   const { violations } = finish(state);
 */
import { textKey } from "./items.ts";
import {
  branchesOf,
  closesGroup,
  joined,
  judgeGroup,
  tookEffectBefore,
  regrouped,
  startSearch,
  stopped,
  type Branch,
  type Search,
} from "./linearize.ts";
import type { Op } from "./operation.ts";
import { judgePage } from "./page.ts";
import { serviceModel } from "./service.ts";
import { NO_KEYS_TAKEN, withKeyTaken, type KeysTaken } from "./key-forms.ts";
import type { Violation } from "./violation.ts";
import { EMPTY_WORLD, type World } from "./world.ts";

export interface ModelState {
  /** What is known of the service. */
  readonly known: {
    /**
     * Every state of the service still consistent with what was observed, each with the order in
     * which overlapping operations took effect on the way to it, where only one order led there.
     */
    readonly worlds: readonly Branch<World>[];
    /** Every message the history sent so far, with the operation (#n) that sent it: how items are read. */
    readonly messages: ReadonlyMap<string, number>;
    /** The keys the service took so far (a create answered 2xx): which it may still refuse. */
    readonly keysTaken: KeysTaken;
  };
  /** The search's bookkeeping (linearize.ts): the group being built, what ruled worlds out, the verdict. */
  readonly search: Search<Op>;
}

export interface Observation {
  readonly state: ModelState;
  /** What this call found: the failure (at most one) and new warnings. */
  readonly violations: readonly Violation[];
}

/** Before any operation: the service in `start` (by default nothing known of it). */
export function initialState(start: World = EMPTY_WORLD, deadline?: number): ModelState {
  return {
    known: { worlds: branchesOf([start]), messages: new Map(), keysTaken: NO_KEYS_TAKEN },
    search: startSearch(deadline),
  };
}

/** Every world still possible. */
export const worldsOf = (state: ModelState): World[] => state.known.worlds.map((b) => b.state);

/** `state` with every world changed by `change` (the orders that led to each kept). */
export const mapWorlds = (state: ModelState, change: (world: World) => World): ModelState => ({
  ...state,
  known: { ...state.known, worlds: state.known.worlds.map((b) => ({ ...b, state: change(b.state) })) },
});

/** `state` with `ops` as the group being built, in place of the operations it held (the traffic judge leaves some out). */
export const withGroup = (state: ModelState, ops: readonly Op[]): ModelState => ({
  ...state,
  search: regrouped(state.search, ops),
});

/** `state` ended by a failure found outside it (an answer wrong by itself): nothing after it is judged. */
export const failedBy = (state: ModelState, failure: Violation): ModelState => ({
  ...state,
  search: { ...state.search, failed: failure },
});

/** Feeds one operation; operations must come in the order they were sent. */
export function observe(state: ModelState, sent: Op): Observation {
  if (stopped(state.search)) return { state, violations: [] };
  // Messages are known by their text key, as items are read (items.ts).
  const op: Op = sent.kind === "create" ? { ...sent, message: textKey(sent.message) } : sent;
  let current = state;
  const found: Violation[] = [];
  if (closesGroup(current.search, op)) {
    const flushed = flush(current);
    current = flushed.state;
    found.push(...flushed.violations);
    if (current.search.failed !== undefined) return { state: current, violations: found };
  }
  // What a page shows by itself is wrong in every world.
  if (op.kind === "list" && op.outcome.type === "ok") {
    const problem = judgePage(op, op.outcome.value);
    if (problem !== undefined) return { state: failedBy(current, problem), violations: [...found, problem] };
  }
  const known = current.known;
  const messages =
    op.kind === "create" && !known.messages.has(op.message)
      ? new Map([...known.messages, [op.message, op.index]])
      : known.messages;
  const keysTaken =
    op.kind === "create" && op.outcome.type === "ok" && op.key !== null
      ? withKeyTaken(known.keysTaken, op.key)
      : known.keysTaken;
  return {
    state: { known: { ...known, messages, keysTaken }, search: joined(current.search, op) },
    violations: found,
  };
}

/** Judges the group being built; call it when no later operation can overlap it any more. */
export function flush(state: ModelState): Observation {
  const judged = judgeGroup(
    state.known.worlds,
    state.search,
    serviceModel(state.known.messages, state.known.keysTaken),
  );
  return {
    state: { known: { ...state.known, worlds: judged.branches }, search: judged.search },
    violations: judged.violations,
  };
}

/**
 * Whether operation `a` took effect before `b` (two overlapping operations), once every world
 * still possible agrees; undefined while the answers allow either.
 */
export function tookEffectFirst(state: ModelState, a: number, b: number): boolean | undefined {
  return tookEffectBefore(state.known.worlds, a, b);
}

/**
 * Whether a history still breaks `requirement` as traffic others share would show it: with no
 * request known to have been alone (`exclusive`), so that a fresh key answered 409 has the excuse
 * of a request nobody saw. A finding that needs that knowledge is its own client's alone.
 */
export function breaksInSharedTraffic(history: readonly Op[], requirement: string): boolean {
  const shared = history.map((op) => (op.kind === "create" ? { ...op, exclusive: false } : op));
  return judgeHistory(shared).violations.some((v) => v.requirement === requirement);
}

/** Judges whatever is still open at the end of the history. */
export function finish(state: ModelState): Observation {
  return flush(state);
}

/** Feeds a whole history (in the order sent) and returns every violation found, the failure last. */
export function judgeHistory(ops: readonly Op[], deadline?: number): Observation {
  let state = initialState(EMPTY_WORLD, deadline);
  const violations: Violation[] = [];
  for (const op of [...ops].sort((a, b) => a.start - b.start || a.index - b.index)) {
    const observed = observe(state, op);
    state = observed.state;
    violations.push(...observed.violations);
  }
  const finished = finish(state);
  return { state: finished.state, violations: [...violations, ...finished.violations] };
}
