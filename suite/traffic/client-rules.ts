/**
 * The client, judged from its traffic by the fake's own client-rule observer
 * (fake-server/client-rules): each observed exchange is replayed into it as the fake would have
 * lived it (arrival, payload, answer, stream end, close) on a clock set to the exchange's own
 * times. One set of rules, whether the client talks to the fake or, through the proxy, to the
 * real service.
 */
import type { RequirementId } from "../../requirements/catalog.ts";
import { ClientRuleObserver } from "../../fake-server/client-rules/observer.ts";
import { fingerprintOfCanonical } from "../../fake-server/idempotency/fingerprint.ts";
import { canonicalJson } from "../../schemas/canonical-json.ts";
import { EVENT, type FakeResponseRequest } from "../../schemas/index.ts";
import type { Classified } from "./classify.ts";
import type { Recorder } from "./recorder.ts";
import type { Redactor } from "../http/redact.ts";
import { streamResultOf, transcriptOf } from "./results.ts";

/** The requirements the observer judges, and which requests can show each. */
const SHOWN_BY: readonly (readonly [RequirementId, (c: Classified) => boolean])[] = [
  ["CLIENT-1", () => true],
  ["CLIENT-2", (c) => c.operation === "create" || c.operation === "stream"],
  ["CLIENT-3", (c) => (c.operation === "create" || c.operation === "stream") && c.idempotencyKey !== undefined],
  ["CLIENT-4", (c) => c.operation === "create" || c.operation === "stream"],
  ["CLIENT-5", (c) => c.operation === "stream"],
  ["CLIENT-6", (c) => c.operation === "create" || c.operation === "stream"],
  ["CLIENT-7", (c) => c.idempotencyKey !== undefined],
];

class SettableClock {
  current = 0;
  now(): number {
    return this.current;
  }
}

export class ClientJudge {
  private readonly clock = new SettableClock();
  /** Keys seen in well-formed Bearer headers: the observer files a malformed header under one of them. */
  private readonly knownKeys = new Set<string>();
  // The client talks to the real service here, and the observer's messages say so.
  private readonly observer = new ClientRuleObserver(this.clock, this.knownKeys, {}, "service");
  private readonly counted = new Map<string, number>();

  constructor(
    private readonly record: Recorder,
    private readonly redactor: Redactor,
  ) {}

  judge(c: Classified, line: string): void {
    const { exchange } = c;
    if (c.token !== undefined) this.knownKeys.add(c.token);
    const url = new URL(exchange.request.url);
    const path = url.pathname.slice(url.pathname.indexOf("/v1/"));
    const response = exchange.response;

    this.clock.current = exchange.startedAt;
    const observed = this.observer.arrived({
      method: exchange.request.method.toUpperCase(),
      path,
      headers: exchange.request.headers,
    });
    if (
      (c.operation === "create" || c.operation === "stream") &&
      typeof (c.body as { message?: unknown } | undefined)?.message === "string"
    ) {
      const body = c.body as FakeResponseRequest;
      const canonical = canonicalJson(body);
      this.observer.payloadAccepted(observed, body, body, canonical, fingerprintOfCanonical(canonical));
    }
    this.clock.current = exchange.startedAt + exchange.durationMs;
    if (response !== undefined && response.status >= 400) this.observer.errorAnswered(observed, response.headers);
    if (c.operation === "stream" && response !== undefined) {
      const terminal = streamResultOf(exchange, this.redactor)?.terminal;
      if (terminal === EVENT.completed) this.observer.streamEnded(observed, "completed");
      else if (terminal === EVENT.error) this.observer.streamEnded(observed, "error");
    }
    this.observer.responseClosed(observed, {
      status: response?.status ?? 0,
      headersSent: response !== undefined,
      finished: response?.complete ?? false,
    });
    this.collect(c, line);
  }

  /** Counts what this exchange could show, and records the violations the observer found in it. */
  private collect(c: Classified, line: string): void {
    const totals = new Map(this.observer.counts().map((count) => [count.requirement, count.count]));
    for (const [requirement, shown] of SHOWN_BY) {
      if (!shown(c)) continue;
      const now = totals.get(requirement) ?? 0;
      const before = this.counted.get(requirement) ?? 0;
      this.counted.set(requirement, now);
      if (now === before) {
        this.record.observed(requirement);
        continue;
      }
      this.record.observed(requirement);
      for (const violation of this.observer.violations({ requirement }).slice(-(now - before))) {
        this.record.violation(requirement, line, violation.message, [transcriptOf(c.exchange, this.redactor)]);
      }
    }
  }
}
