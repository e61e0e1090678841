import type { Level } from "../../requirements/catalog.ts";
import type { Transcript } from "../http/types.ts";
import type { InteractionsSummary } from "../interactions/coverage.ts";

export type { InteractionsSummary };

/** The shape of conformance.json (DESIGN.md, "The suite's interface"), plus evidence for humans. */

/**
 * inconclusive: the check ran, but the target never let it finish (timeouts, retries
 * exhausted); it judges nothing either way.
 * not_observed: judging traffic (proxy, HAR), no observed exchange could show it.
 */
export type RequirementStatus = "pass" | "fail" | "warn" | "skip" | "inconclusive" | "not_observed";
export type TestStatus = "pass" | "fail" | "skip" | "inconclusive";

/** What the target made a check wait for: retried "try later" answers and unsettled listings. */
export interface CheckWaiting {
  retries: number;
  /** Statuses that were retried, e.g. { "429": 3 }. */
  retriedStatuses: Record<string, number>;
  retryWaitMs: number;
  /** Listing reads repeated until a finished exchange showed, and the time that took. */
  settleReads: number;
  settleWaitMs: number;
}

/** Every check's outcome beyond pass and fail: inconclusive (with why) and its waiting. */
export interface CheckMeta {
  /** Why the user's choice left the check out (e.g. the smoke profile). */
  excluded?: string;
  inconclusive?: string;
  waiting?: CheckWaiting;
  /** What the interaction property explored, on the check that built its shared run. */
  interactions?: InteractionsSummary;
  /** The run was stopped (SIGINT, SIGTERM) before this check ended: it judged nothing. */
  interrupted?: string;
}

/** One event of a stream as the reader saw it, for the report's timeline. */
export interface TimelineEvent {
  at: number;
  event: string | undefined;
  data: string;
}

/** One operation of an interaction counterexample, numbered as its transcript shows it. */
export interface CounterexampleOperation {
  readonly n: number;
  readonly lane: number;
  /** Milliseconds from the first operation's start. */
  readonly startMs: number;
  readonly endMs: number;
  readonly request: string;
  readonly answer: string;
  readonly overlaps: readonly number[];
  /**
   * Who sent it: "primary", "otherAgent", "otherKey" (the primary agent under another key),
   * "noKey" or "unknownKey" (a key nobody issued), as the request's `as …` names it.
   */
  readonly who: string;
}

/** A minimal history that breaks a requirement, as the interaction property reports it. */
export interface Counterexample {
  readonly requirement: string;
  readonly message: string;
  readonly expected: string | undefined;
  readonly operations: readonly CounterexampleOperation[];
  /** Operations in the history the failure was found in, before shrinking. */
  readonly historyLength: number;
  readonly seed: number;
  readonly path: string;
  /** Whether one replay of the minimal history against the target showed the same violation. */
  readonly confirmation: "confirmed" | "not reproduced by one replay" | "not replayed: the create budget is spent";
  readonly replay: string;
  /**
   * Set when the history breaks the requirement only because the suite knew no other request of
   * its own was in flight (a fresh key answered 409 with no excuse): traffic others share would
   * excuse it, so the conformance proxy, watching such traffic, cannot show it.
   */
  readonly ownTrafficOnly?: true;
}

export interface TestReport {
  name: string;
  /** The check file's family, e.g. "idempotency". */
  file: string;
  status: TestStatus;
  durationMs: number;
  /** Why it failed, was skipped ("budget: …", "needs --other-api-key") or was inconclusive. */
  message?: string;
  /** The skip was the user's choice (--only, --exclude, --profile), not a gap in the run. */
  excluded?: boolean;
  /** What the target made the check wait for: retried 429/503/409 answers, unsettled listings. */
  waiting?: CheckWaiting;
  /** Redacted exchanges the failing check attached as evidence. */
  transcripts?: Transcript[];
  /** Stream timelines the failing check attached as evidence. */
  timelines?: TimelineEvent[][];
  /** The interaction property's minimal history, when it found the failure. */
  counterexample?: Counterexample;
}

export interface RequirementReport {
  id: string;
  level: Level;
  family: string;
  summary: string;
  spec: string;
  status: RequirementStatus;
  reason?: string;
  /** A skip the user chose (--only, --exclude, --profile): it does not make the run incomplete. */
  excluded?: boolean;
  /** A known failure listed in the --baseline file: it does not fail the run. */
  baselined?: boolean;
  /** The baseline entry's reason and expiry date, when baselined. */
  baselineReason?: string;
  baselineExpires?: string;
  tests: TestReport[];
}

/** What the --baseline file did to the run. */
export interface BaselineReport {
  /** The file as given. */
  file: string;
  /** Requirements whose failure the baseline accepted. */
  baselined: string[];
  /** Stale (listed but passed) and expired entries: each fails the run. */
  problems: string[];
}

export interface ConformanceReport {
  /** Redacted target description. */
  target: string;
  /** The suite that wrote the report (package name and version); `merge` refuses shards of different ones. */
  suite?: { name: string; version: string };
  /** Follows the exit code: pass 0, fail 1, error 2, incomplete 3. */
  result: "pass" | "fail" | "incomplete" | "error";
  strict: boolean;
  runId: string;
  seed: number;
  startedAt: string;
  durationMs: number;
  counts: {
    pass: number;
    fail: number;
    warn: number;
    skip: number;
    inconclusive: number;
    tests: number;
    not_observed?: number;
  };
  /**
   * MUST requirements that were skipped or inconclusive without the user excluding them: the
   * run is incomplete (exit 3) when there are any and nothing failed.
   */
  incomplete: { id: string; status: "skip" | "inconclusive"; reason: string }[];
  creates: { budget: number; spent: number };
  /**
   * Conversations the run could not delete at the end, and those its owner's DELETE answered 404
   * although the run created them and no check deleted them (often state not shared between
   * replicas): not a conformance verdict.
   */
  cleanup: { deleted: number; failed: { conversationId: string; reason: string }[]; notFound?: string[] };
  /** Failures of the harness itself (as opposed to the target). */
  harnessErrors: string[];
  /** Why a run stopped before any check (result "error"): a usage error or the preflight's diagnosis. */
  diagnosis?: string;
  /** Present when the run had a --baseline file. */
  baseline?: BaselineReport;
  /** Present when SIGINT or SIGTERM stopped the run (result "incomplete"). */
  interrupted?: InterruptedReport;
  /** Which of n disjoint shares of the checks this run judged (--shard i/n); absent for a whole run. */
  shard?: ShardReport;
  /**
   * What the interaction property explored: seeds, sequences, operations, creates and the
   * coverage per dimension (DESIGN, "Exploring the whole space"); absent when it did not run.
   * A merged report holds the union of its shards'.
   */
  interactions?: InteractionsSummary;
  requirements: RequirementReport[];
}

/** A run a signal stopped: what it had judged by then, and whether it stopped at once. */
export interface InterruptedReport {
  signal: "SIGINT" | "SIGTERM";
  /** "interrupted by SIGINT after 12 of 48 checks": also the reason of every requirement left unjudged. */
  reason: string;
  checks: { done: number; total: number };
  /** A second signal (or the runner's bound on waiting) stopped it without waiting or cleaning up. */
  atOnce: boolean;
}

/** --shard i/n: the run is share `index` (1-based) of `count`. */
export interface ShardReport {
  index: number;
  count: number;
}
