import { RequestLog } from "../admin/request-log.ts";
import { ClientRuleObserver } from "../client-rules/observer.ts";
import type { AppContext } from "../context.ts";
import { ConversationStore } from "../conversations/store.ts";
import { IdempotencyStore } from "../idempotency/store.ts";
import { AnswerRules } from "../rules/answer-rules.ts";
import { FaultRules } from "../rules/fault-rules.ts";
import type { SessionRegistry } from "./registry.ts";

/** What the app shares between sessions, and what each session builds for itself from it. */
export type SharedContext = Omit<AppContext, keyof SessionStores | "session" | "sessions">;

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
export class Session {
  readonly context: AppContext;
  /** For evicting the least recently used session; bumped by the registry. */
  lastUsed = 0;

  constructor(
    readonly name: string,
    shared: SharedContext,
    sessions: SessionRegistry,
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
    this.context = { ...shared, ...stores, session: this, sessions };
  }

  /** Empties every store of the session in place (the objects stay, so references to them stay valid). */
  clear(): void {
    const { conversations, idempotency, requestLog, clientRules, faultRules, answerRules } = this.context;
    conversations.clear();
    idempotency.clear();
    requestLog.clear();
    clientRules.clear();
    faultRules.clear();
    answerRules.clear();
  }
}
