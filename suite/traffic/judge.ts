/**
 * The traffic judge: every observed exchange judged in both directions (the service against
 * what traffic can show of the spec, the client against CLIENT-1…7), with a report in the
 * suite's formats. A requirement is `pass` only when some exchange could show it and none broke
 * it (requirement-report.ts).
 */
import { randomUUID } from "node:crypto";
import { REQUIREMENTS } from "../../requirements/catalog.ts";
import { DEFAULTS } from "../runner/config.ts";
import type { Redactor } from "../http/redact.ts";
import type { HttpResult, StreamResult } from "../http/types.ts";
import type { ConformanceReport } from "../report/report-types.ts";
import {
  countsOf,
  gateFails,
  gateUndecided,
  isClientRequirement,
  isGated,
  partyVerdict,
  type Gate,
  type PartyCounts,
  type PartyVerdict,
} from "./gate.ts";
import { nothingJudged, type ExchangeCounts, type TrafficSource } from "./nothing-judged.ts";
import { classify, type Classified } from "./classify.ts";
import { ClientJudge } from "./client-rules.ts";
import type { ObservedExchange } from "./exchange.ts";
import type { UndecidedVerdict } from "./held-verdicts.ts";
import { Recorder, type TrafficViolation } from "./recorder.ts";
import { CrossRequestJudge, type SeenOperation } from "./cross-request.ts";
import { RefusedKeys } from "./refused-keys.ts";
import { httpResultOf, streamResultOf } from "./results.ts";
import { judgePageEcho } from "./page-echo.ts";
import { requirementReport } from "./requirement-report.ts";
import { judgeCreate, judgeDelete, judgeList, judgeStream, type Judged } from "./service-rules.ts";

export type { TrafficViolation } from "./recorder.ts";

/** What a traffic run adds to the suite's report: the two parties' verdicts apart, and the exchanges. */
export interface TrafficSection {
  gate: Gate;
  source: TrafficSource;
  exchanges: ExchangeCounts;
  service: PartyVerdict;
  client: PartyVerdict;
  /** Verdicts held back for listing lag that nothing decided, each with the exchanges that held it. */
  undecided: UndecidedVerdict[];
}

/** A traffic run's requirements by status, the service's and the client's apart. */
export interface TrafficCounts {
  service: PartyCounts;
  client: PartyCounts;
}

/**
 * The suite's report of a traffic run: result pass, fail, incomplete when a gated verdict is
 * undecided, or error when nothing was judged. Without what only an active run has (a seed,
 * creates, cleanup); `counts` per party.
 */
export type TrafficReport = Omit<ConformanceReport, "seed" | "creates" | "cleanup" | "counts"> & {
  counts: TrafficCounts;
  traffic: TrafficSection;
};

export interface TrafficJudge {
  /** Judges one finished exchange; returns the violations it revealed. */
  observe(exchange: ObservedExchange): TrafficViolation[];
  /**
   * The traffic is over: verdicts held back for listing lag are decided, or found undecided.
   * Returns the violations this decided; `report` does the same, silently, if not called.
   */
  finish(): TrafficViolation[];
  /** The report as of now. */
  report(): TrafficReport;
  /** Exchanges that were operations of the spec, and all exchanges seen. */
  readonly judged: number;
  readonly seen: number;
  /** Operations left unjudged because a body was not recorded or could not be read. */
  readonly unread: number;
  /** Exchanges that got no answer: counted, never judged. */
  readonly unanswered: number;
  /** Exchanges cut before they ended: judged as far as they went. */
  readonly incomplete: number;
}

export interface TrafficJudgeOptions {
  /** Redacted description of what was judged ("proxy to https://…", "3 HAR files"). */
  target: string;
  redactor: Redactor;
  strict?: boolean;
  /**
   * How long the service may take to show a write in its listings (the suite's --settle-ms,
   * default 3000): a delete that shows later, or an exchange a listing read later still misses,
   * is a violation (DEL-1, DEL-3; RESP-2, SSE-8); what a read inside it contradicts is held until
   * decided (held-verdicts.ts).
   */
  settleMs?: number;
  /** Whose verdict sets the result (default service). */
  gate?: Gate;
  /** Where the traffic comes from, for the diagnosis of a run that judged nothing (default har). */
  source?: TrafficSource;
}

/** "POST /v1/agents/a/responses/stream → 200 (#12)", the key never in it. */
function lineOf(c: Classified, redactor: Redactor): string {
  const { exchange } = c;
  let path = exchange.request.url;
  try {
    const url = new URL(exchange.request.url);
    path = `${url.pathname}${url.search}`;
  } catch {
    // The URL as recorded.
  }
  const status = exchange.response === undefined ? (exchange.failure ?? "no answer") : String(exchange.response.status);
  return redactor.scrub(`${exchange.request.method.toUpperCase()} ${path} → ${status} (#${exchange.sequence})`);
}

/** False when the answer's body, or a create's request body, was not recorded or not readable. */
function bodiesKnown({ exchange, operation }: Classified): boolean {
  if (exchange.response !== undefined && exchange.response.body === undefined) return false;
  return !((operation === "create" || operation === "stream") && exchange.request.body === undefined);
}

export function createTrafficJudge(options: TrafficJudgeOptions): TrafficJudge {
  const { redactor } = options;
  const record = new Recorder();
  const refusals = new RefusedKeys();
  const crossRequest = new CrossRequestJudge(record, options.settleMs ?? DEFAULTS.settleMs);
  const clients = new ClientJudge(record, redactor);
  const incremental: boolean[] = [];
  const startedAt = new Date();
  let judged = 0;
  let seen = 0;
  let unread = 0;
  let unanswered = 0;
  let incomplete = 0;
  let firstFailure: string | undefined;
  const finish = () => {
    // What waited for an earlier request to end, and what was held back for lag, decided now that no later read can come.
    crossRequest.finish();
    return record.takeFresh();
  };
  /** The exchange judged on its own; what the model is to judge across requests, if anything. */
  const judgeOne = (exchange: ObservedExchange): SeenOperation | undefined => {
    if (exchange.incomplete === true) incomplete++;
    // No answer (the upstream unreachable, the request failed) shows nothing of the service,
    // and the client's request alone would be judged without what it answered to.
    if (exchange.response === undefined && exchange.incomplete !== true) {
      unanswered++;
      firstFailure ??= exchange.failure;
      return undefined;
    }
    const c = classify(exchange);
    if (c === undefined) return undefined;
    // Cut before its answer came whole (a stream's excepted, read as far as it went): no body of
    // it is judged, its request is, and the model takes it as an unknown outcome.
    if (exchange.incomplete === true && (exchange.response === undefined || c.operation !== "stream")) {
      if ((c.operation === "create" || c.operation === "stream") && exchange.request.body === undefined) {
        unread++;
        return undefined;
      }
      const line = lineOf(c, redactor);
      clients.judge(c, line);
      return { c, result: undefined, line };
    }
    // A verdict on a body nobody saw would be a guess, about the service or the client.
    if (!bodiesKnown(c)) {
      unread++;
      return undefined;
    }
    judged++;
    const line = lineOf(c, redactor);
    const j: Judged = { c, line, record, refusals, incremental };
    let result: HttpResult | StreamResult | undefined;
    if (c.operation === "stream") {
      const s = (result = streamResultOf(exchange, redactor));
      if (s !== undefined) judgeStream(j, s);
    } else {
      const http = (result = httpResultOf(exchange, redactor));
      if (http !== undefined)
        (c.operation === "create" ? judgeCreate : c.operation === "list" ? judgeList : judgeDelete)(j, http);
      if (http !== undefined && c.operation === "list") judgePageEcho(j, http);
    }
    clients.judge(c, line);
    return result === undefined ? undefined : { c, result, line };
  };
  return {
    get judged() {
      return judged;
    },
    get seen() {
      return seen;
    },
    get unread() {
      return unread;
    },
    get unanswered() {
      return unanswered;
    },
    get incomplete() {
      return incomplete;
    },
    observe(exchange) {
      seen++;
      let operation: SeenOperation | undefined;
      try {
        operation = judgeOne(exchange);
      } finally {
        // Every exchange, judged or not, tells the model's feed that its request has ended.
        crossRequest.arrived(exchange.sequence, operation);
      }
      return record.takeFresh();
    },
    finish,
    report() {
      finish();
      // SSE-9 over the whole traffic, as the active check judges it: one multi-delta stream that
      // arrived in pieces is enough, since a server that buffers buffers every stream.
      const tallies = new Map(record.tallies);
      if (incremental.length > 0) {
        tallies.set(
          "SSE-9",
          incremental.some(Boolean)
            ? { observed: incremental.length, violations: [], dropped: 0 }
            : {
                observed: incremental.length,
                violations: [
                  {
                    requirement: "SSE-9",
                    level: "SHOULD",
                    sentence: "",
                    exchange: `${incremental.length} multi-delta stream(s)`,
                    detail: "every multi-delta stream arrived with all its events in one network read",
                    transcripts: [],
                  },
                ],
                dropped: 0,
              },
        );
      }
      const requirements = REQUIREMENTS.map((r) =>
        requirementReport(r, tallies.get(r.id), crossRequest.undecided.of(r.id), options.strict ?? false),
      );
      const gate = options.gate ?? "service";
      const service = partyVerdict(requirements.filter((r) => !isClientRequirement(r)));
      const client = partyVerdict(requirements.filter(isClientRequirement));
      const exchanges = { seen, judged, unread, unanswered, incomplete };
      const source = options.source ?? "har";
      const result =
        judged === 0
          ? "error"
          : gateFails(gate, service, client)
            ? "fail"
            : gateUndecided(gate, service, client)
              ? "incomplete"
              : "pass";
      return {
        target: options.target,
        result,
        ...(judged === 0 ? { diagnosis: nothingJudged(exchanges, source, firstFailure) } : {}),
        traffic: { gate, source, exchanges, service, client, undecided: crossRequest.undecided.all() },
        strict: options.strict ?? false,
        runId: randomUUID(),
        startedAt: startedAt.toISOString(),
        durationMs: Date.now() - startedAt.getTime(),
        counts: { service: countsOf(service), client: countsOf(client) },
        // The gated MUSTs nothing decided: why the run is incomplete.
        incomplete: requirements
          .filter((r) => r.status === "inconclusive" && r.level === "MUST" && isGated(gate, r))
          .map((r) => ({ id: r.id, status: "inconclusive" as const, reason: r.reason ?? "undecided" })),
        harnessErrors: [],
        requirements,
      };
    },
  };
}

/** The --settle-ms flag of both traffic commands: a whole number of milliseconds, or a message saying what is wrong. */
export function parseSettleMs(value: string | undefined): number | string {
  if (value === undefined) return DEFAULTS.settleMs;
  return /^\d{1,7}$/.test(value) ? Number(value) : `--settle-ms must be a whole number of milliseconds, not ${value}`;
}

/**
 * 0: no gated MUST broken (not_observed never counts against it: judging traffic is never
 * complete); 1: a gated MUST broken, or a SHOULD under --strict; 2: nothing was judged; 3: none
 * broken, but a gated verdict held back for listing lag was never decided.
 */
export function trafficExitCode(report: TrafficReport): 0 | 1 | 2 | 3 {
  if (report.result === "error") return 2;
  if (report.result === "incomplete") return 3;
  return report.result === "fail" ? 1 : 0;
}
