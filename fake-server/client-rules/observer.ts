/**
 * The client-rule observer (stage 2): follows every /v1 request from arrival to close, judges it
 * against the spec's client rules and records what breaks them per API key, in bounded memory,
 * without changing any answer. The traffic judge replays recorded exchanges into it too.
 */
import type { ClientViolation, ClientViolationCount, FakeResponseRequest } from "../../schemas/index.ts";
import { requirementById } from "../../requirements/catalog.ts";
import { bearerTokenOf } from "../access/bearer.ts";
import type { Clock } from "../runtime/clock.ts";
import { formatTimestamp } from "../conversations/timestamps.ts";
import { bucketMatches, type ClientViolationFilter } from "./filter.ts";
import { KeyBuckets, type KeyBucket, type RecordedViolation } from "./key-buckets.ts";
import { observeRequest, type ArrivingRequest, type ObservedRequest } from "./observed-request.ts";
import { resolveClientRuleOptions, type ClientRuleOptions } from "./options.ts";
import { renderRequest, truncate } from "./render.ts";
import type { AnsweringParty, ClientRule, Finding, RuleInput } from "./rule.ts";
import { createRules } from "./rules/index.ts";

/** How an answer ended, as the client could see it. */
export interface ClosedAnswer {
  readonly status: number;
  /** The status line and headers went out (for a stream: it had started). */
  readonly headersSent: boolean;
  /** The answer went out to its end. */
  readonly finished: boolean;
}

/**
 * One request as the observer follows it from arrival to close. The caller keeps it with
 * the request (the fake on its request object) and hands it back at each later step.
 */
export class ObservedExchange {
  /** The client rules the request broke, as "CLIENT-n: …" (the request log shows them); undefined while none. */
  warnings: string[] | undefined = undefined;
  /** The answer closed: later steps are ignored. */
  closed = false;

  constructor(
    readonly observed: ObservedRequest,
    readonly token: string | undefined,
    /** The bucket the request was remembered in on arrival. */
    readonly bucket: KeyBucket,
  ) {}
}

/**
 * Watches every /v1 request for the spec's client rules and records what breaks them, per
 * API key, in bounded memory. It never changes what the fake answers.
 */
export class ClientRuleObserver {
  readonly options: ClientRuleOptions;
  private readonly rules: readonly ClientRule[];
  /** The rules of each stage, split once rather than filtered per request. */
  private readonly rulesOf: Readonly<Record<ClientRule["stage"], readonly ClientRule[]>>;
  private readonly buckets: KeyBuckets;
  private readonly totals = new Map<string, number>();
  private sequence = 0;

  constructor(
    private readonly clock: Clock,
    private readonly knownKeys: ReadonlySet<string>,
    options: Partial<ClientRuleOptions> = {},
    /** Who answers the requests observed: the fake itself unless told otherwise. */
    private readonly party: AnsweringParty = "fake",
  ) {
    this.options = resolveClientRuleOptions(options);
    this.rules = createRules();
    this.rulesOf = {
      arrival: this.rules.filter((rule) => rule.stage === "arrival"),
      payload: this.rules.filter((rule) => rule.stage === "payload"),
    };
    this.buckets = new KeyBuckets(this.options.maxKeys);
  }

  /**
   * A /v1 request came in: judge its headers now. The exchange returned follows it until its
   * answer closes (`responseClosed`); the steps between take it too.
   */
  arrived(req: ArrivingRequest): ObservedExchange {
    const observed = observeRequest(req, this.clock.now());
    const token = this.attributedToken(observed.headers.authorization);
    const bucket = this.buckets.touch(token);
    const tracked = new ObservedExchange(observed, token, bucket);
    this.judge("arrival", tracked, bucket);
    if (observed.operation !== undefined) bucket.remember(observed, this.options.historyPerKey);
    return tracked;
  }

  /** The answer's connection closed: its status and end, as the client could see them. No exchange (a request not observed), or one closed already, is ignored. */
  responseClosed(tracked: ObservedExchange | undefined, answer: ClosedAnswer): void {
    if (tracked === undefined || tracked.closed) return;
    tracked.closed = true;
    const { observed } = tracked;
    observed.status = answer.status;
    observed.finishedAt = this.clock.now();
    // A stream route answers 2xx only with an event stream; closed before its end is cut,
    // whoever cut it (an injected drop, the network, the client hanging up).
    const started =
      observed.operation === "stream" && answer.headersSent && answer.status >= 200 && answer.status < 300;
    if (started && !answer.finished) observed.streamEnd = "cut";
    tracked.bucket.closed(observed);
  }

  /**
   * A create body passed the fake's validation (`request`). `canonical` and `fingerprint`
   * are its canonical JSON and digest, as the idempotency store compares payloads.
   */
  payloadAccepted(
    tracked: ObservedExchange | undefined,
    body: unknown,
    request: FakeResponseRequest,
    canonical: string,
    fingerprint: string,
  ): void {
    // The spec's request shape holds whenever the fake's did, unless a mutant made up a
    // message for a body without a string one: such a body is not a payload to compare.
    if (
      !tracked ||
      typeof body !== "object" ||
      body === null ||
      typeof (body as { message?: unknown }).message !== "string"
    )
      return;
    tracked.observed.payload = {
      fingerprint,
      message: request.message,
      conversationId: request.conversation_id ?? null,
      excerpt: truncate(canonical, this.options.bodyExcerptChars),
    };
    const bucket = this.buckets.touch(tracked.token);
    this.judge("payload", tracked, bucket);
  }

  /** An error answer is about to go out; its Retry-After paces the retries after it. */
  errorAnswered(tracked: ObservedExchange | undefined, headers: Readonly<Record<string, string>>): void {
    const retryAfter = Object.entries(headers).find(([name]) => name.toLowerCase() === "retry-after")?.[1];
    if (!tracked || retryAfter === undefined || !/^\d+$/.test(retryAfter)) return;
    tracked.observed.retryAfterMs = Number(retryAfter) * 1000;
  }

  /** A started stream wrote its terminal event (or reached it after the client left). */
  streamEnded(tracked: ObservedExchange | undefined, terminal: "completed" | "error"): void {
    if (!tracked || tracked.observed.streamEnd === "cut") return;
    tracked.observed.streamEnd = terminal;
  }

  violations(filter: ClientViolationFilter = {}): ClientViolation[] {
    const recorded: { bucket: KeyBucket; violation: RecordedViolation }[] = [];
    for (const bucket of this.buckets.all()) {
      if (!bucketMatches(bucket, filter.key)) continue;
      for (const violation of bucket.violations) {
        if (filter.requirement === undefined || violation.requirement === filter.requirement)
          recorded.push({ bucket, violation });
      }
    }
    return recorded
      .sort((a, b) => a.violation.sequence - b.violation.sequence)
      .map(({ bucket, violation }) => ({
        requirement: violation.requirement,
        spec: requirementById(violation.requirement)?.spec ?? violation.requirement,
        message: violation.message,
        apiKey: bucket.shownAs,
        at: formatTimestamp(violation.at),
        requests: violation.requests.map(renderRequest),
      }));
  }

  /**
   * How often each requirement was broken, in catalog order. Without a key filter these are
   * totals since the start or the last reset; with one, the matching keys still tracked.
   */
  counts(filter: ClientViolationFilter = {}): ClientViolationCount[] {
    let counts: ReadonlyMap<string, number> = this.totals;
    if (filter.key !== undefined) {
      const summed = new Map<string, number>();
      for (const bucket of this.buckets.all()) {
        if (!bucketMatches(bucket, filter.key)) continue;
        for (const [requirement, count] of bucket.counts)
          summed.set(requirement, (summed.get(requirement) ?? 0) + count);
      }
      counts = summed;
    }
    return this.rules.flatMap((rule) => {
      const count = counts.get(rule.requirement) ?? 0;
      const wanted = filter.requirement === undefined || filter.requirement === rule.requirement;
      return count > 0 && wanted ? [{ requirement: rule.requirement, title: rule.title, count }] : [];
    });
  }

  /** How many API keys are tracked now (at most `maxKeys`). */
  get trackedKeys(): number {
    return this.buckets.size;
  }

  /** The requirements this observer records, in catalog order. */
  get recordedRequirements(): string[] {
    return this.rules.map((rule) => rule.requirement);
  }

  clear(): void {
    this.buckets.clear();
    this.totals.clear();
  }

  private judge(stage: ClientRule["stage"], tracked: ObservedExchange, bucket: KeyBucket): void {
    const request = tracked.observed;
    const input: RuleInput = {
      request,
      sameOperationKey: bucket.sameOperationKey(request),
      failedStreams: bucket.failedStreams,
      options: this.options,
      party: this.party,
    };
    for (const rule of this.rulesOf[stage]) {
      const finding = rule.judge(input);
      if (finding) this.record(rule, finding, bucket, tracked);
    }
  }

  private record(rule: ClientRule, finding: Finding, bucket: KeyBucket, tracked: ObservedExchange): void {
    bucket.record(
      {
        sequence: this.sequence++,
        requirement: rule.requirement,
        message: finding.message,
        at: this.clock.now(),
        requests: finding.requests,
      },
      this.options.maxViolationsPerKey,
    );
    this.totals.set(rule.requirement, (this.totals.get(rule.requirement) ?? 0) + 1);
    (tracked.warnings ??= []).push(`${rule.requirement}: ${finding.message}`);
  }

  /**
   * The key a request is filed under: its bearer token; for a malformed header, the last
   * word of it when that is a configured key (a client that forgot "Bearer " still finds
   * its violations under its key); otherwise none.
   */
  private attributedToken(header: string | undefined): string | undefined {
    const token = bearerTokenOf(header);
    if (token !== undefined) return token;
    const lastWord = header?.trim().split(/\s+/).at(-1);
    return lastWord !== undefined && this.knownKeys.has(lastWord) ? lastWord : undefined;
  }
}
