/**
 * What a handler sees: the app's shared parts and its session's stores (AppContext), and the
 * request as the pipeline has annotated it (FakeRequest). Types only, so any folder may name them
 * without importing the app.
 */
import type { Request as PolkaRequest } from "polka";
import type { ServerResponse } from "node:http";
import type { Socket } from "node:net";
import type { RequestLog } from "./request-log/request-log.ts";
import type { AnswerEngine } from "./answers/engine.ts";
import type { Behavior } from "./behavior/behavior.ts";
import type { Clock } from "./runtime/clock.ts";
import type { ClientRuleObserver, ObservedExchange } from "./client-rules/observer.ts";
import type { ConversationStore } from "./conversations/store.ts";
import type { Overload } from "./deployment/overload.ts";
import type { TokenBuckets } from "./deployment/rate-limit.ts";
import type { FaultPlan } from "./faults/fault-plan.ts";
import type { IdempotencyStore } from "./idempotency/store.ts";
import type { InFlight } from "./runtime/in-flight.ts";
import type { ApiKeyGrant } from "./access/keys.ts";
import type { ResolvedOptions } from "./options.ts";
import type { AnswerRules } from "./answers/answer-rules.ts";
import type { FaultRules } from "./faults/fault-rules.ts";
import type { Replicas } from "./deployment/replicas.ts";
import type { TimerRegistry } from "./pause/timers.ts";

/**
 * Everything a handler may use: the app's shared parts, and the stores of the session the
 * request is in (sessions/session.ts builds one such context per session).
 */
export interface AppContext {
  readonly options: ResolvedOptions;
  readonly behavior: Behavior;
  readonly clock: Clock;
  readonly engine: AnswerEngine;
  /** The session's conversations. */
  readonly conversations: ConversationStore;
  /** The session's idempotency records. */
  readonly idempotency: IdempotencyStore;
  readonly timers: TimerRegistry;
  /** The session's request log. */
  readonly requestLog: RequestLog;
  /** Judges every /v1 request of the session against the spec's client rules (client-rules/). */
  readonly clientRules: ClientRuleObserver;
  /** The session's fault rules (`/__fake/faults`). */
  readonly faultRules: FaultRules;
  /** The session's answer rules (`/__fake/answers`). */
  readonly answerRules: AnswerRules;
  /** The session the request is in. */
  readonly session: SessionOfRequest;
  readonly inFlight: InFlight;
  /** The fault plan of a create without X-Fake-Fault: none, or the behavior's pacing (faults/fault-plan.ts `baseFaultPlan`). */
  readonly baseFaults: FaultPlan;
  /** The rate-limited variant's token buckets; undefined without a rate limit. */
  readonly rateLimits: TokenBuckets | undefined;
  /** Replicas behind one load balancer (a mutant); undefined for one process. */
  readonly replicas: Replicas | undefined;
  /**
   * The keys this replica has written the exchange of, kept in its own memory (the replicas
   * mutant); undefined for one process.
   */
  readonly appliedKeys: Set<string> | undefined;
  /** The overloaded variant's create counter; undefined when creates are never overloaded. */
  readonly overload: Overload | undefined;
  /** Aborted when the app closes: every pause ends and every running exchange stops. */
  readonly shutdown: AbortSignal;
  /** Logs an unexpected error; never throws. */
  log(line: string): void;
}

/** What a handler may do with its session (sessions/session.ts): name it, empty it, find the replica of a connection. */
export interface SessionOfRequest {
  readonly name: string;
  /** Empties every store of the session. */
  clear(): void;
  /** The context of the replica serving this connection (the session's own when the app is one process). */
  contextOn(socket: Socket): AppContext;
}

/** A polka request with what the fake's middleware learns about it. */
export interface FakeRequest extends PolkaRequest {
  /** Set by the auth middleware on every /v1 request that gets past it. */
  grant?: ApiKeyGrant;
  /** Mutant only: the key check's refusal of a stream request let on to its body (exchange/auth-by-conversation.ts). */
  refusedKey?: unknown;
  /** The client-rule observer's record of this /v1 request (its `warnings` go to the request log). */
  observed?: ObservedExchange;
  /** The id of the fault rule that applied to it, for the request log. */
  faultRule?: string;
  /** The id of the answer rule that answered it, for the request log. */
  answerRule?: string;
  /** The body as read (at most the request log's share of it), for the request log. */
  bodyText?: string;
}

export type Handler = (ctx: AppContext, req: FakeRequest, res: ServerResponse) => Promise<void> | void;
