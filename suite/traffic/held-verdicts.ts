/**
 * Verdicts held back for the service's lag (cross-request.ts). A read begun within --settle-ms of
 * a write that contradicts the model as lag would (a listing that lacks an exchange, a
 * conversation still shown after its delete) is not a verdict yet. It is decided later, and
 * never passed:
 * - by a later read: one that agrees with the model takes it back (the service lagged); a listing
 *   read after the window that still disagrees is the model's own verdict and replaces it;
 * - by the conversation's delete (answered 2xx): no read can show the exchange, or the earlier
 *   delete applied, after it, so the reads before it are all the evidence there will be, and what
 *   none of them showed counts against the service, however soon the delete came. The suite's
 *   settling judges the last listing it read the same way, and that listing always lies inside a
 *   window of the same length counted from the write;
 * - by the stop (the end of the traffic: the last exchange's end, so a HAR judged offline gives
 *   the live proxy's verdicts): what the service had its whole window to show and never showed
 *   counts against it; what was still inside its window could yet have shown, and is undecided.
 * A conversation the model stopped judging, or forgot, leaves what it held undecided. Undecided
 * verdicts are reported with the exchanges that held them.
 */
import type { RequirementId } from "../../requirements/catalog.ts";
import type { Op } from "../model/operation.ts";
import type { TrafficViolation } from "./recorder.ts";

/** How a read's disagreement may be lag: a delete not applied yet, or an exchange not listed yet. */
export type LagKind = "deleted" | "unlisted";

export interface HeldVerdict {
  readonly kind: LagKind;
  /** The requirement and the operation it is about: later reads of the same lag join it. */
  readonly about: string;
  /** The latest read's violation. */
  violation: TrafficViolation;
  /** Every read that held it, as the judge names exchanges. */
  readonly reads: string[];
  /** On the model's clock: a read begun from here on would have been settled. */
  settledFrom: number;
}

export interface UndecidedVerdict {
  readonly requirement: RequirementId;
  readonly level: "MUST" | "SHOULD";
  /** The reads that held it back. */
  readonly exchanges: readonly string[];
  /** What they showed. */
  readonly detail: string;
  /** Why nothing decided it. */
  readonly reason: string;
}

/** Reads named per held verdict. */
const READS_NAMED = 10;

/** Holds a read's violation, or joins it to the one held for the same lag. */
export function holdFor(held: HeldVerdict[], kind: LagKind, about: string, violation: TrafficViolation, settledFrom: number): void {
  const same = held.find((h) => h.about === about);
  if (same === undefined) {
    held.push({ kind, about, violation, reads: [violation.exchange], settledFrom });
    return;
  }
  same.violation = violation;
  same.settledFrom = Math.max(same.settledFrom, settledFrom);
  // A client that polls names its first reads and its latest: enough to find them, bounded however long it polled.
  if (same.reads.includes(violation.exchange)) return;
  if (same.reads.length >= READS_NAMED) same.reads.splice(READS_NAMED - 1, 1);
  same.reads.push(violation.exchange);
}

/**
 * What a judged group of operations, none of them contradicted, leaves held: a listing answered
 * 2xx takes back an exchange not listed; any read with a known answer takes back a delete not
 * applied.
 */
export function afterAgreeingReads(held: readonly HeldVerdict[], group: readonly Op[], isRead: (op: Op) => boolean): HeldVerdict[] {
  const listed = group.some((op) => op.kind === "list" && op.outcome.type === "ok");
  const read = group.some((op) => isRead(op) && op.outcome.type !== "unknown");
  return held.filter((h) => (h.kind === "unlisted" ? !listed : !read));
}

/** The violation with why it now stands. */
const decided = (h: HeldVerdict, why: string): TrafficViolation => ({ ...h.violation, detail: `${h.violation.detail}; ${why}` });
const shown = (h: HeldVerdict) => (h.kind === "unlisted" ? "no listing showed it" : "no read showed the delete applied");

/** A delete (2xx) ended the conversation: whatever no read showed before it counts against the service. */
export function decidedByDelete(held: readonly HeldVerdict[], deleteLine: string): TrafficViolation[] {
  return held.map((h) => decided(h, `${shown(h)} before the conversation's delete, ${deleteLine}`));
}

/** The traffic ended at `stop` (model clock): what had its whole window counts against the service; the rest is undecided. */
export function decidedAtStop(held: readonly HeldVerdict[], stop: number, settleMs: number): { against: TrafficViolation[]; undecided: UndecidedVerdict[] } {
  const against = held.filter((h) => h.settledFrom <= stop).map((h) => decided(h, `${shown(h)} in the ${settleMs} ms --settle-ms window, nor before the traffic ended`));
  const undecided = undecidedOf(
    held.filter((h) => h.settledFrom > stop),
    (h) => `the traffic ended ${Math.ceil(h.settledFrom - stop)} ms before the ${settleMs} ms --settle-ms window had passed, and ${shown(h)}: a later read could still have`,
  );
  return { against, undecided };
}

export function undecidedOf(held: readonly HeldVerdict[], reason: (h: HeldVerdict) => string): UndecidedVerdict[] {
  return held.map((h) => ({ requirement: h.violation.requirement, level: h.violation.level, exchanges: h.reads, detail: h.violation.detail, reason: reason(h) }));
}

/** Undecided verdicts kept per requirement; the count goes on. */
const KEPT_PER_REQUIREMENT = 50;

/** Every undecided verdict of the traffic, per requirement. */
export class UndecidedVerdicts {
  private readonly byRequirement = new Map<RequirementId, { count: number; kept: UndecidedVerdict[] }>();

  add(verdicts: readonly UndecidedVerdict[]): void {
    for (const v of verdicts) {
      let entry = this.byRequirement.get(v.requirement);
      if (entry === undefined) this.byRequirement.set(v.requirement, (entry = { count: 0, kept: [] }));
      entry.count++;
      if (entry.kept.length < KEPT_PER_REQUIREMENT) entry.kept.push(v);
    }
  }

  of(requirement: RequirementId): { count: number; kept: readonly UndecidedVerdict[] } | undefined {
    return this.byRequirement.get(requirement);
  }

  all(): UndecidedVerdict[] {
    return [...this.byRequirement.values()].flatMap((e) => e.kept);
  }
}
