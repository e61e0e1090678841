/**
 * Verdicts held back for the service's lag (cross-request.ts). A read begun within --settle-ms of
 * a write that contradicts the model as lag would (a listing that lacks an exchange, a
 * conversation still shown after its delete) is not a verdict yet. It is decided later, and
 * never passed:
 * - by a later read: one that agrees with the model takes it back (the service lagged); a listing
 *   read after the window that still disagrees is the model's own verdict and replaces it;
 * - when no later read can come, or be judged: the conversation's delete (answered 2xx: no read
 *   can show the exchange, or the earlier delete applied, after it), a violation that stops the
 *   model judging the conversation or its contents (a later listing of contents it no longer
 *   knows would agree with anything), or the end of the traffic. Then it is
 *   judged as the suite's settling judges its last listing: the suite reads with back-off until
 *   the window runs out, so its last read always falls in the window's second half. A read there
 *   that still disagreed counts against the service; reads only in the first half leave the
 *   verdict undecided, since the service may have shown the write a moment later and nobody
 *   looked. Only recorded times count, so a HAR judged offline decides as the live proxy did.
 * A conversation whose search grew undecided, or that the judge forgot, leaves what it held undecided. Undecided
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
  /** On the model's clock: when the write it is about (the exchange not listed, the delete not applied) ended. */
  readonly writeEnd: number;
  /** On the model's clock: when the latest read that held it began. */
  lastReadAt: number;
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
export function holdFor(
  held: HeldVerdict[],
  kind: LagKind,
  about: string,
  violation: TrafficViolation,
  writeEnd: number,
  readAt: number,
): void {
  const same = held.find((h) => h.about === about);
  if (same === undefined) {
    held.push({ kind, about, violation, reads: [violation.exchange], writeEnd, lastReadAt: readAt });
    return;
  }
  same.violation = violation;
  same.lastReadAt = Math.max(same.lastReadAt, readAt);
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
export function afterAgreeingReads(
  held: readonly HeldVerdict[],
  group: readonly Op[],
  isRead: (op: Op) => boolean,
): HeldVerdict[] {
  const listed = group.some((op) => op.kind === "list" && op.outcome.type === "ok");
  const read = group.some((op) => isRead(op) && op.outcome.type !== "unknown");
  return held.filter((h) => (h.kind === "unlisted" ? !listed : !read));
}

const shown = (h: HeldVerdict) =>
  h.kind === "unlisted" ? "no listing showed it" : "no read showed the delete applied";

/**
 * No later read can come (`ended`: "the conversation's delete, DELETE … (#9)", "the end of the
 * traffic"): what a read in the second half of its window still showed wrong counts against the
 * service, the rest is undecided.
 */
export function decidedAtEnd(
  held: readonly HeldVerdict[],
  settleMs: number,
  ended: string,
): { against: TrafficViolation[]; undecided: UndecidedVerdict[] } {
  const since = (h: HeldVerdict) => Math.round(h.lastReadAt - h.writeEnd);
  const late = (h: HeldVerdict) => since(h) >= settleMs / 2;
  const against = held.filter(late).map((h) => ({
    ...h.violation,
    detail: `${h.violation.detail}; ${shown(h)}: the last read without it began ${since(h)} ms after the write, in the second half of the ${settleMs} ms --settle-ms window (where the suite's settling reads last), and no later read came before ${ended}`,
  }));
  const undecided = undecidedOf(
    held.filter((h) => !late(h)),
    (h) =>
      `no read came in the second half of the ${settleMs} ms --settle-ms window before ${ended} (the last began ${since(h)} ms after the write): the service may only have lagged`,
  );
  return { against, undecided };
}

export function undecidedOf(held: readonly HeldVerdict[], reason: (h: HeldVerdict) => string): UndecidedVerdict[] {
  return held.map((h) => ({
    requirement: h.violation.requirement,
    level: h.violation.level,
    exchanges: h.reads,
    detail: h.violation.detail,
    reason: reason(h),
  }));
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
