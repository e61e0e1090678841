/**
 * The check currently running: the client finds it through AsyncLocalStorage to charge its
 * budget, abort its requests when it times out, and keep the exchanges that explain a failure.
 */

import { AsyncLocalStorage } from "node:async_hooks";
import type { RequirementId } from "../../../requirements/catalog.ts";
import type { Reservation } from "./budget.ts";
import { capText } from "../../http/transcript.ts";
import type {
  CheckMeta,
  CheckWaiting,
  Counterexample,
  InteractionsSummary,
  TimelineEvent,
} from "../../report/report-types.ts";
import type { RetryNote, StreamResult, Transcript } from "../../http/types.ts";

export type { CheckMeta, CheckWaiting };

/** Evidence attached to a failing check's vitest meta, for the reporter. */
export interface CheckEvidence {
  transcripts: Transcript[];
  timelines: TimelineEvent[][];
  counterexample?: Counterexample;
}

declare module "vitest" {
  interface TaskMeta {
    /** The requirements a check judges, set by check() when it registers the test. */
    requirements?: RequirementId[];
    conformance?: CheckEvidence;
    conformanceCheck?: CheckMeta;
  }
}

/** Kept per check: the last few exchanges are what explain a failure. */
const KEEP_TRANSCRIPTS = 5;
const KEEP_TIMELINES = 3;
const TIMELINE_EVENTS = 60;
const TIMELINE_DATA_CHARS = 300;

export class CheckScope {
  readonly title: string;
  readonly reservation: Reservation;
  readonly controller = new AbortController();
  readonly #transcripts: Transcript[] = [];
  readonly #timelines: TimelineEvent[][] = [];
  readonly waiting: CheckWaiting = { retries: 0, retriedStatuses: {}, retryWaitMs: 0, settleReads: 0, settleWaitMs: 0 };

  constructor(title: string, reservation: Reservation) {
    this.title = title;
    this.reservation = reservation;
  }

  /** Time added to the check's deadline (a shared fixture built under it), and who applies it. */
  extendedMs = 0;
  onExtend: ((ms: number) => void) | undefined;
  /** The shared fixtures this check declared (CheckOptions.uses). */
  uses: readonly string[] = [];

  extend(ms: number): void {
    this.extendedMs += ms;
    this.onExtend?.(ms);
  }

  /** Takes over what a fixture built under this check waited for and exchanged. */
  adopt(child: CheckScope): void {
    const w = child.waiting;
    this.waiting.retries += w.retries;
    this.waiting.retryWaitMs += w.retryWaitMs;
    this.waiting.settleReads += w.settleReads;
    this.waiting.settleWaitMs += w.settleWaitMs;
    for (const [status, n] of Object.entries(w.retriedStatuses)) {
      this.waiting.retriedStatuses[status] = (this.waiting.retriedStatuses[status] ?? 0) + n;
    }
    const evidence = child.evidence();
    for (const transcript of evidence.transcripts) this.record(transcript);
    this.interactions ??= child.interactions;
  }

  noteRetry(note: RetryNote): void {
    this.waiting.retries++;
    this.waiting.retryWaitMs += note.waitMs;
    const key = String(note.status);
    this.waiting.retriedStatuses[key] = (this.waiting.retriedStatuses[key] ?? 0) + 1;
  }

  noteSettle(reads: number, waitedMs: number): void {
    this.waiting.settleReads += reads;
    this.waiting.settleWaitMs += waitedMs;
  }

  /** Whether the target made this check wait at all. */
  waited(): boolean {
    return this.waiting.retries > 0 || this.waiting.settleReads > 0;
  }

  record(transcript: Transcript, stream?: StreamResult): void {
    this.#transcripts.push(transcript);
    if (this.#transcripts.length > KEEP_TRANSCRIPTS) this.#transcripts.shift();
    if (stream !== undefined && stream.events.length > 0) {
      const shown = stream.events.slice(0, TIMELINE_EVENTS).map((e) => ({
        at: e.at,
        event: e.event,
        data: capText(e.data, TIMELINE_DATA_CHARS),
      }));
      this.#timelines.push(shown);
      if (this.#timelines.length > KEEP_TIMELINES) this.#timelines.shift();
    }
  }

  /** Makes `transcripts` the evidence of a failure, whatever exchanges came after them. */
  pin(transcripts: readonly Transcript[]): void {
    this.#pinned = [...transcripts];
  }

  #pinned: Transcript[] | undefined;

  /** The interaction property's counterexample behind this check's failure. */
  counterexample: Counterexample | undefined;

  /** What the interaction property explored, when a fixture built under this check ran it: the report's `interactions`. */
  interactions: InteractionsSummary | undefined;

  evidence(): CheckEvidence {
    const base = { transcripts: [...(this.#pinned ?? this.#transcripts)], timelines: [...this.#timelines] };
    return this.counterexample === undefined ? base : { ...base, counterexample: this.counterexample };
  }
}

const STORAGE_KEY = Symbol.for("agent-conformance.check-scope");

/**
 * One storage per process, even if this module is evaluated again for another test file:
 * the client built for the first file must see the checks of every later file.
 */
export const checkScopes: AsyncLocalStorage<CheckScope> = ((globalThis as Record<symbol, unknown>)[STORAGE_KEY] ??=
  new AsyncLocalStorage<CheckScope>()) as AsyncLocalStorage<CheckScope>;
