import type { IncomingMessage, ServerResponse } from "node:http";
import {
  ResponseRequest,
  type ClientViolation,
  type ClientViolationCount,
} from "../../schemas/index.ts";
import { requirementById } from "../../suite/requirements.ts";
import { bearerToken } from "../auth.ts";
import type { Clock } from "../clock.ts";
import { formatTimestamp } from "../conversations/timestamps.ts";
import { payloadFingerprint } from "../idempotency/fingerprint.ts";
import { redactKey } from "../keys.ts";
import { bucketMatches, type ClientViolationFilter } from "./filter.ts";
import { KeyBuckets, type KeyBucket, type RecordedViolation } from "./key-buckets.ts";
import { observeRequest, type ObservedRequest } from "./observed-request.ts";
import { resolveClientRuleOptions, type ClientRuleOptions } from "./options.ts";
import { bodyExcerpt, renderRequest } from "./render.ts";
import type { ClientRule, Finding } from "./rule.ts";
import { createRules } from "./rules/index.ts";

interface Tracked {
  readonly observed: ObservedRequest;
  readonly token: string | undefined;
  readonly shownAs: string | null;
  /** Where the request's findings go for the request log; the same array as `req.warnings`. */
  readonly warnings: string[];
}

/**
 * Watches every /v1 request for the spec's client rules and records what breaks them, per
 * API key, in bounded memory. It never changes what the fake answers.
 */
export class ClientRuleObserver {
  readonly options: ClientRuleOptions;
  private readonly rules: readonly ClientRule[];
  private readonly buckets: KeyBuckets;
  private readonly tracked = new WeakMap<IncomingMessage, Tracked>();
  private readonly totals = new Map<string, number>();
  private sequence = 0;

  constructor(
    private readonly clock: Clock,
    private readonly knownKeys: ReadonlySet<string>,
    options: Partial<ClientRuleOptions> = {},
  ) {
    this.options = resolveClientRuleOptions(options);
    this.rules = createRules();
    this.buckets = new KeyBuckets(this.options.maxKeys);
  }

  /** A /v1 request came in: judge its headers now, and follow it until its connection closes. */
  arrived(req: IncomingMessage & { path: string; warnings?: string[] }, res: ServerResponse): void {
    const observed = observeRequest(req, this.clock.now());
    const token = this.attributedToken(req);
    const shownAs = token === undefined ? null : redactKey(token);
    const warnings = (req.warnings ??= []);
    this.tracked.set(req, { observed, token, shownAs, warnings });
    const bucket = this.buckets.touch(token, shownAs);
    this.judge("arrival", observed, bucket, warnings);
    if (observed.operation !== undefined) bucket.remember(observed, this.options.historyPerKey);
    res.once("close", () => {
      observed.status = res.statusCode;
      observed.finishedAt = this.clock.now();
      // A stream route answers 2xx only with an event stream; closed before its end is cut,
      // whoever cut it (an injected drop, the network, the client hanging up).
      const started = observed.operation === "stream" && res.headersSent && res.statusCode >= 200 && res.statusCode < 300;
      if (started && !res.writableFinished) observed.streamEnd = "cut";
    });
  }

  /** A create body passed validation. */
  payloadAccepted(req: IncomingMessage, body: unknown): void {
    const tracked = this.tracked.get(req);
    const parsed = ResponseRequest.safeParse(body);
    if (!tracked || !parsed.success) return;
    tracked.observed.payload = {
      fingerprint: payloadFingerprint(body),
      message: parsed.data.message,
      conversationId: parsed.data.conversation_id ?? null,
      excerpt: bodyExcerpt(body, this.options.bodyExcerptChars),
    };
    const bucket = this.buckets.touch(tracked.token, tracked.shownAs);
    this.judge("payload", tracked.observed, bucket, tracked.warnings);
  }

  /** An error answer is about to go out; its Retry-After paces the retries after it. */
  errorAnswered(req: IncomingMessage, headers: Readonly<Record<string, string>>): void {
    const tracked = this.tracked.get(req);
    const retryAfter = Object.entries(headers).find(([name]) => name.toLowerCase() === "retry-after")?.[1];
    if (!tracked || retryAfter === undefined || !/^\d+$/.test(retryAfter)) return;
    tracked.observed.retryAfterMs = Number(retryAfter) * 1000;
  }

  /** A started stream wrote its terminal event (or reached it after the client left). */
  streamEnded(req: IncomingMessage, terminal: "completed" | "error"): void {
    const tracked = this.tracked.get(req);
    if (!tracked || tracked.observed.streamEnd === "cut") return;
    tracked.observed.streamEnd = terminal;
  }

  violations(filter: ClientViolationFilter = {}): ClientViolation[] {
    const recorded: { bucket: KeyBucket; violation: RecordedViolation }[] = [];
    for (const bucket of this.buckets.all()) {
      if (!bucketMatches(bucket, filter.key)) continue;
      for (const violation of bucket.violations) {
        if (filter.requirement === undefined || violation.requirement === filter.requirement) recorded.push({ bucket, violation });
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
        for (const [requirement, count] of bucket.counts) summed.set(requirement, (summed.get(requirement) ?? 0) + count);
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

  private judge(stage: ClientRule["stage"], request: ObservedRequest, bucket: KeyBucket, warnings: string[]): void {
    const earlier = bucket.history.filter((other) => other !== request);
    for (const rule of this.rules) {
      if (rule.stage !== stage) continue;
      const finding = rule.judge({ request, earlier, options: this.options });
      if (finding) this.record(rule, finding, bucket, warnings);
    }
  }

  private record(rule: ClientRule, finding: Finding, bucket: KeyBucket, warnings: string[]): void {
    bucket.record(
      { sequence: this.sequence++, requirement: rule.requirement, message: finding.message, at: this.clock.now(), requests: finding.requests },
      this.options.maxViolationsPerKey,
    );
    this.totals.set(rule.requirement, (this.totals.get(rule.requirement) ?? 0) + 1);
    warnings.push(`${rule.requirement}: ${finding.message}`);
  }

  /**
   * The key a request is filed under: its bearer token; for a malformed header, the last
   * word of it when that is a configured key (a client that forgot "Bearer " still finds
   * its violations under its key); otherwise none.
   */
  private attributedToken(req: IncomingMessage): string | undefined {
    const token = bearerToken(req);
    if (token !== undefined) return token;
    const header = req.headers.authorization;
    const lastWord = header?.trim().split(/\s+/).at(-1);
    return lastWord !== undefined && this.knownKeys.has(lastWord) ? lastWord : undefined;
  }
}
