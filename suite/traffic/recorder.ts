/**
 * Per requirement: how many exchanges could show it, and the violations they showed. A
 * judgement that throws ExpectationError is a violation; one that throws InconclusiveError
 * (a stream cut before it could show anything) showed nothing and is not counted.
 */
import { requirementById, type RequirementId } from "../../requirements/catalog.ts";
import { InconclusiveError } from "../http/errors.ts";
import { ExpectationError } from "../judgements/expect.ts";
import type { Transcript } from "../http/types.ts";

export interface TrafficViolation {
  requirement: RequirementId;
  level: "MUST" | "SHOULD";
  /** The catalog's requirement text. */
  sentence: string;
  /** One redacted line: "POST /v1/agents/a/responses/stream → 200 (#12)". */
  exchange: string;
  /** What was wrong. */
  detail: string;
  transcripts: Transcript[];
}

export interface Tally {
  observed: number;
  violations: TrafficViolation[];
  /** Violations beyond those kept. */
  dropped: number;
}

/** Violations kept per requirement; the count goes on. */
const KEPT_PER_REQUIREMENT = 50;

export class Recorder {
  readonly tallies = new Map<RequirementId, Tally>();
  private fresh: TrafficViolation[] = [];

  private tally(id: RequirementId): Tally {
    let tally = this.tallies.get(id);
    if (tally === undefined) this.tallies.set(id, (tally = { observed: 0, violations: [], dropped: 0 }));
    return tally;
  }

  /** Runs one judgement of `requirement` on an exchange described by `line`. */
  judge(requirement: RequirementId, line: string, judgement: () => void): void {
    const violation = this.hold(requirement, line, judgement);
    if (violation !== undefined) this.release(violation);
  }

  /**
   * Runs a judgement whose verdict may still be taken back by a later exchange: it counts as
   * observed now, and a violation is returned to the caller, not recorded (see `release`).
   */
  hold(requirement: RequirementId, line: string, judgement: () => void): TrafficViolation | undefined {
    try {
      judgement();
      this.tally(requirement).observed++;
      return undefined;
    } catch (error) {
      if (error instanceof InconclusiveError) return undefined;
      if (!(error instanceof ExpectationError)) throw error;
      return this.holdViolation(requirement, line, error.what, [...error.transcripts]);
    }
  }

  /**
   * A violation found other than by a judgement (the model's, across requests), held as `hold`
   * holds one: the exchange counts as observed now, and the caller releases it or not.
   */
  holdViolation(requirement: RequirementId, line: string, detail: string, transcripts: Transcript[]): TrafficViolation {
    this.tally(requirement).observed++;
    return this.violationOf(requirement, line, detail, transcripts);
  }

  /** Records a violation `hold` returned, once nothing took it back. */
  release(violation: TrafficViolation): void {
    const tally = this.tally(violation.requirement);
    if (tally.violations.length < KEPT_PER_REQUIREMENT) tally.violations.push(violation);
    else tally.dropped++;
    this.fresh.push(violation);
  }

  /** A violation found other than by a judgement (the client rules). */
  violation(requirement: RequirementId, line: string, detail: string, transcripts: Transcript[]): void {
    this.release(this.violationOf(requirement, line, detail, transcripts));
  }

  private violationOf(
    requirement: RequirementId,
    line: string,
    detail: string,
    transcripts: Transcript[],
  ): TrafficViolation {
    const known = requirementById(requirement);
    return {
      requirement,
      level: known?.level ?? "MUST",
      sentence: known?.summary ?? requirement,
      exchange: line,
      detail,
      transcripts,
    };
  }

  /** An exchange could show `requirement` and did not break it (the client rules count this way). */
  observed(requirement: RequirementId): void {
    this.tally(requirement).observed++;
  }

  /** The violations found since the last call. */
  takeFresh(): TrafficViolation[] {
    const fresh = this.fresh;
    this.fresh = [];
    return fresh;
  }
}
