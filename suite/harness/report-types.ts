import type { Level } from "../../requirements/catalog.ts";
import type { Transcript } from "./types.ts";

/** The shape of conformance.json (DESIGN.md, "The suite's interface"), plus evidence for humans. */

export type RequirementStatus = "pass" | "fail" | "warn" | "skip";
export type TestStatus = "pass" | "fail" | "skip";

/** One event of a stream as the reader saw it, for the report's timeline. */
export interface TimelineEvent {
  at: number;
  event: string | undefined;
  data: string;
}

export interface TestReport {
  name: string;
  /** The check file's family, e.g. "idempotency". */
  file: string;
  status: TestStatus;
  durationMs: number;
  /** Why it failed, or why it was skipped ("budget: …", "needs --other-api-key"). */
  message?: string;
  /** Redacted exchanges the failing check attached as evidence. */
  transcripts?: Transcript[];
  /** Stream timelines the failing check attached as evidence. */
  timelines?: TimelineEvent[][];
}

export interface RequirementReport {
  id: string;
  level: Level;
  family: string;
  summary: string;
  spec: string;
  status: RequirementStatus;
  reason?: string;
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
  result: "pass" | "fail";
  strict: boolean;
  runId: string;
  seed: number;
  startedAt: string;
  durationMs: number;
  counts: { pass: number; fail: number; warn: number; skip: number; tests: number };
  creates: { budget: number; spent: number };
  /** Conversations the run could not delete at the end: not a conformance verdict. */
  cleanup: { deleted: number; failed: { conversationId: string; reason: string }[] };
  /** Failures of the harness itself (as opposed to the target). */
  harnessErrors: string[];
  /** Present when the run had a --baseline file. */
  baseline?: BaselineReport;
  requirements: RequirementReport[];
}
