/**
 * One session: the stores nothing outside it sees (conversations, idempotency records, request log,
 * client-rule observer, fault and answer rules) and the context its handlers see, built once.
 */
import type { Socket } from "node:net";
import { RequestLog } from "../request-log/request-log.ts";
import { ClientRuleObserver } from "../client-rules/observer.ts";
import type { AppContext, SessionOfRequest } from "../context.ts";
import { ConversationStore } from "../conversations/store.ts";
import { IdempotencyStore } from "../idempotency/store.ts";
import { AnswerRules } from "../answers/answer-rules.ts";
import { FaultRules } from "../faults/fault-rules.ts";

/** What the app shares between sessions, and what each session builds for itself from it. */
export type SharedContext = Omit<AppContext, keyof SessionStores | "session" | "appliedKeys">;

/** The stores one session owns: nothing in them is seen from another session. */
export interface SessionStores {
  readonly conversations: ConversationStore;
  readonly idempotency: IdempotencyStore;
  readonly requestLog: RequestLog;
  readonly clientRules: ClientRuleObserver;
  readonly faultRules: FaultRules;
  readonly answerRules: AnswerRules;
}

/**
 * One session of the fake (`X-Fake-Session`): its stores, and the context its requests'
 * handlers see, built once so a request pays only for finding it.
 */
export class Session implements SessionOfRequest {
  readonly context: AppContext;
  /** One context per replica (deployment/replicas.ts), the first being `context`. */
  private readonly replicaContexts: readonly AppContext[];
  /** For evicting the least recently used session; bumped by the registry. */
  lastUsed = 0;

  constructor(
    readonly name: string,
    shared: SharedContext,
    newId: () => string,
  ) {
    const { options, clock } = shared;
    const stores: SessionStores = {
      conversations: new ConversationStore(clock, newId, options.maxConversations),
      idempotency: new IdempotencyStore(clock, options.idempotencyTtlMs),
      requestLog: new RequestLog(options.requestLogSize),
      clientRules: new ClientRuleObserver(clock, new Set(options.keys.keys()), options.clientRules),
      faultRules: new FaultRules(),
      answerRules: new AnswerRules(),
    };
    const replicated = shared.replicas !== undefined;
    this.context = { ...shared, ...stores, session: this, appliedKeys: replicated ? new Set() : undefined };
    this.loadAnswerRules();
    // Replica 0 is this context; the others share every store and keep their own applied keys.
    this.replicaContexts = Array.from({ length: shared.replicas?.count ?? 1 }, (_, replica) =>
      replica === 0 ? this.context : { ...this.context, appliedKeys: new Set<string>() },
    );
  }

  /** The context of the replica serving a connection (the session's own context when the app is one process). */
  contextOn(socket: Socket): AppContext {
    const { replicas } = this.context;
    return replicas === undefined ? this.context : (this.replicaContexts[replicas.of(socket)] ?? this.context);
  }

  /** The idempotency records of the session (shared by its replicas). */
  idempotencyStores(): IdempotencyStore[] {
    return [this.context.idempotency];
  }

  /**
   * Empties every store of the session in place (the objects stay, so references to them stay
   * valid), back to its starting state: the loaded answer rules come back.
   */
  clear(): void {
    const { conversations, requestLog, clientRules, faultRules, answerRules } = this.context;
    conversations.clear();
    for (const idempotency of this.idempotencyStores()) idempotency.clear();
    for (const replica of this.replicaContexts) replica.appliedKeys?.clear();
    requestLog.clear();
    clientRules.clear();
    faultRules.clear();
    answerRules.clear();
    this.loadAnswerRules();
  }

  /**
   * The answer rules of the `answers` option (`--answers FILE`): part of every session's
   * starting state, so a session per test file sees them, and its reset brings them back.
   */
  private loadAnswerRules(): void {
    for (const rule of this.context.options.answers) this.context.answerRules.addFromBody(rule);
  }
}
