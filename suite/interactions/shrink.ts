/**
 * Shrinking costs the target nothing: the recorded history is shrunk offline, with the model as
 * the oracle. What came after the violation goes first, then halves, quarters, … of what is
 * left, then single operations, the latest first, for as long as the model still finds the same
 * requirement broken by the same operation; the survivors are then numbered afresh (#1…#n), so the
 * counterexample reads on its own. The violation names its operations as data, so numbering
 * afresh maps those numbers; its words are rendered only when the counterexample is shown.
 */
import { marksOf } from "../model/items.ts";
import { judgeHistory } from "../model/model.ts";
import { sameConversation } from "../model/operation.ts";
import type { Op } from "../model/operation.ts";
import { renumberViolation, type Violation } from "../model/violation.ts";
import type { Entry } from "./session.ts";

/**
 * At most this many model runs per shrink, and at most this long, each run included (a candidate
 * the model cannot judge by then does not count as breaking): what is shrunk by then is reported.
 */
const MAX_ATTEMPTS = 2_000;
const SHRINK_BUDGET_MS = 5_000;

const failureOf = (entries: readonly Entry[], deadline?: number): Violation | undefined =>
  judgeHistory(
    entries.map((e) => e.op),
    deadline,
  ).state.search.failed;

export interface Shrunk {
  readonly entries: readonly Entry[];
  readonly violation: Violation;
}

/**
 * The smallest history (by dropping operations) that still breaks `violation.requirement`,
 * renumbered. A failure the model did not find (an answer wrong by itself) keeps its one operation.
 */
export function shrinkHistory(entries: readonly Entry[], violation: Violation): Shrunk {
  const sorted = [...entries].sort((a, b) => a.op.index - b.op.index);
  // The same failure, not merely the same requirement: shown by the same operation. Without an
  // operation that explained a later answer (a delete before a 404), a history can break the same
  // requirement somewhere else, and the counterexample would show a failure the service never had.
  const shownAt = (v: Violation) => (v.ops.length === 0 ? undefined : Math.max(...v.ops));
  const deadline = performance.now() + SHRINK_BUDGET_MS;
  // The recorded history itself is judged without a deadline: the walk already judged it once.
  const breaks = (candidate: readonly Entry[], until?: number) => {
    const failure = failureOf(candidate, until);
    return failure?.requirement === violation.requirement && shownAt(failure) === shownAt(violation);
  };
  let current = sorted;
  if (!breaks(current)) {
    const own = sorted.filter((e) => violation.ops.includes(e.op.index));
    const kept = own.length > 0 ? own : sorted;
    return { entries: renumber(kept), violation: renumberViolation(violation, numbering(kept)) };
  }
  // What came after the violation's last operation cannot be needed to show it.
  const last = Math.max(...violation.ops);
  const prefix = current.filter((e) => e.op.index <= last);
  if (prefix.length < current.length && breaks(prefix, deadline)) current = prefix;
  let attempts = 0;
  // The model runs left: a history the model keeps many states for costs more per run.
  const more = () => attempts < MAX_ATTEMPTS && performance.now() < deadline;
  // Chunks first, halving (ddmin): a long history loses most of itself in a few model runs.
  for (let size = Math.floor(current.length / 2); size >= 1 && more(); size = Math.floor(size / 2)) {
    for (let end = current.length; end > 0 && more(); end -= size) {
      const from = Math.max(0, end - size);
      const dropped = new Set<number>();
      for (let i = from; i < end; i++) if (!shownByListing(current, i) && !keyUsedLater(current, i)) dropped.add(i);
      if (dropped.size === 0) continue;
      attempts++;
      const candidate = current.filter((_, j) => !dropped.has(j));
      if (breaks(candidate, deadline)) current = candidate;
    }
  }
  // Then one at a time, until no single operation can go.
  for (let changed = true; changed && more();) {
    changed = false;
    for (let i = current.length - 1; i >= 0 && more(); i--) {
      if (shownByListing(current, i) || keyUsedLater(current, i)) continue;
      attempts++;
      const candidate = current.filter((_, j) => j !== i);
      if (breaks(candidate, deadline)) {
        current = candidate;
        changed = true;
      }
    }
  }
  // The violation the survivors show, its operations numbered as they are.
  return {
    entries: renumber(current),
    violation: renumberViolation(failureOf(current) ?? violation, numbering(current)),
  };
}

/**
 * What a kept listing shows stays: an exchange or a delete of a conversation listed later (its
 * total counts every exchange, on every page), and a create whose message a listing shows.
 * Without them a listing would show what the history cannot explain, and the counterexample
 * would mislead (a lost update shrunk to a single turn that "vanished").
 */
function shownByListing(entries: readonly Entry[], i: number): boolean {
  const op = entries[i]?.op;
  if (op === undefined || op.kind === "list") return false;
  // A create of unknown outcome (a stream cut, a dropped connection) may have written to the
  // conversation it continued: a later listing of it may show that exchange.
  const changed =
    op.kind === "delete"
      ? op.outcome.type === "ok"
        ? op.conversationId
        : undefined
      : op.outcome.type === "ok"
        ? op.outcome.value.conversationId
        : op.outcome.type === "unknown"
          ? (op.conversationId ?? undefined)
          : undefined;
  const listedLater = (id: string) =>
    entries
      .slice(i + 1)
      .some(
        ({ op: later }) =>
          later.kind === "list" && later.outcome.type === "ok" && sameConversation(later.conversationId, id),
      );
  if (changed !== undefined && listedLater(changed) && !isReplayOfEarlier(entries, i)) return true;
  // A delete explains every later request that names its conversation (a 404, a refused continuation).
  if (op.kind === "delete" && changed !== undefined && namedLater(entries, i, changed)) return true;
  if (op.kind !== "create") return false;
  // A replay repeats the message of the request it replays: only the first sender explains the item.
  if (entries.slice(0, i).some(({ op: earlier }) => earlier.kind === "create" && earlier.message === op.message))
    return false;
  const message = new Set([op.message]);
  return entries.some(
    ({ op: other }) =>
      other.kind === "list" && other.outcome.type === "ok" && marksOf(other.outcome.value.items, message).length > 0,
  );
}

/** Whether a request after entries[i] names the conversation `id` (a listing, a delete or a continuation). */
function namedLater(entries: readonly Entry[], i: number, id: string): boolean {
  return entries
    .slice(i + 1)
    .some(({ op: later }) => later.conversationId !== null && sameConversation(later.conversationId, id));
}

/**
 * A create whose key a kept create sends again stays: what the key was bound to is part of what
 * the later answer means (without it, a 409 would read as one to a fresh key).
 */
function keyUsedLater(entries: readonly Entry[], i: number): boolean {
  const op = entries[i]?.op;
  if (op?.kind !== "create" || op.key === null) return false;
  return entries
    .slice(i + 1)
    .some(({ op: later }) => later.kind === "create" && later.key === op.key && later.who === op.who);
}

/** A create repeating the key and payload of an earlier create: a replay, which changes nothing when the service is right. */
function isReplayOfEarlier(entries: readonly Entry[], i: number): boolean {
  const op = entries[i]?.op;
  if (op?.kind !== "create" || op.key === null) return false;
  return entries
    .slice(0, i)
    .some(
      ({ op: earlier }) =>
        earlier.kind === "create" && earlier.key === op.key && earlier.who === op.who && earlier.payload === op.payload,
    );
}

/** The survivors' new numbers (#1…#n, in their order), by their old ones. */
const numbering = (kept: readonly Entry[]): Map<number, number> => new Map(kept.map((e, i) => [e.op.index, i + 1]));

function renumber(entries: readonly Entry[]): Entry[] {
  return entries.map((e, i) => ({ ...e, op: { ...e.op, index: i + 1 } as Op }));
}
