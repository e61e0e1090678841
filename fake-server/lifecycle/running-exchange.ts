/**
 * A fresh exchange of either create endpoint once its checks passed: its answer, chosen
 * before any pause; what the commit hooks read when it starts; and its one end: committed,
 * failed (error-after) or abandoned. How long it takes and how it is shown belong to the
 * route that presents it.
 */
import type { ServerResponse } from "node:http";
import type { FakeErrorCode } from "../../schemas/index.ts";
import type { Answer } from "../answers/engine.ts";
import { abandon, commitAnswered, commitFailed, conversationFor, type AnsweredOutcome } from "../commit/commit.ts";
import { updatedAtKeeper } from "../commit/frozen-updated-at.ts";
import { stillCurrent, versionAtStart, type VersionRead } from "../commit/optimistic-lock.ts";
import { readAtStart, writeBack, type ConversationRead } from "../commit/write-back.ts";
import type { AppContext } from "../context.ts";
import type { FreshExchange } from "../exchange/prepare.ts";
import type { FaultPlan } from "../faults/fault-plan.ts";
import { deliveryWatch } from "../idempotency/dropped-streams.ts";
import { answerWatch } from "../commit/answer-watch.ts";

/** How a stream that failed on purpose ends, and what replays of its key give. */
export interface ExchangeFailure {
  readonly deltasBeforeError: number;
  readonly code: FakeErrorCode;
  readonly message: string;
}

export class RunningExchange {
  /** The conversation; undefined until a new one is opened. */
  private conversation: string | undefined;
  // The commit hooks (mutants only; each undefined in the conforming fake): the conversation's
  // version and content when the exchange started (commit/optimistic-lock.ts, commit/write-back.ts),
  // and watches on its client (idempotency/dropped-streams.ts, commit/answer-watch.ts).
  private read: ConversationRead | undefined;
  private readonly version: VersionRead | undefined;
  private readonly delivered: (() => void) | undefined;
  private readonly answerKept: (() => boolean) | undefined;
  private ended = false;

  constructor(
    private readonly ctx: AppContext,
    res: ServerResponse,
    readonly exchange: FreshExchange,
    readonly faults: FaultPlan,
    readonly answer: Answer,
  ) {
    this.conversation = exchange.conversationId;
    this.version = versionAtStart(ctx, exchange.operation, exchange);
    if (this.conversation !== undefined) this.read = readAtStart(ctx, this.conversation);
    this.delivered = deliveryWatch(ctx.behavior, exchange.operation, res, exchange.reservation);
    this.answerKept = answerWatch(ctx.behavior, exchange.operation, res);
  }

  /**
   * The conversation's id. A new one is opened on the first call: a stream announces it in
   * response.created, a plain create opens it when it commits. What the exchange read of it
   * is read then.
   */
  conversationId(): string {
    if (this.conversation === undefined) {
      this.conversation = conversationFor(this.ctx, this.exchange);
      this.read = readAtStart(this.ctx, this.conversation);
    }
    return this.conversation;
  }

  /** The exchange took place: stored with its result for replays. */
  commit(): AnsweredOutcome {
    const { ctx, exchange } = this;
    const conversationId = this.conversationId();
    this.ended = true;
    const current = stillCurrent(ctx, this.version);
    writeBack(ctx, this.read);
    const restoreUpdatedAt = updatedAtKeeper(ctx, exchange.operation, conversationId);
    const outcome = commitAnswered(ctx, exchange, conversationId, this.answer, current, this.answerKept?.() ?? true);
    restoreUpdatedAt?.();
    this.delivered?.();
    return outcome;
  }

  /** The agent failed after `deltasSent` deltas (error-after): nothing appended, the failure stored for replays. */
  fail(deltasSent: number): ExchangeFailure {
    const failure: ExchangeFailure = {
      deltasBeforeError: deltasSent,
      code: "agent_failed",
      message:
        `the agent failed after ${deltasSent} deltas (error-after injected on purpose); ` +
        "replays of this Idempotency-Key give the same error, use a new key to try again",
    };
    this.ended = true;
    commitFailed(this.ctx, this.exchange, this.conversationId(), this.answer, failure);
    return failure;
  }

  /** Unless it committed or failed, the exchange did not take place (an unexpected error, shutdown): its key is free again. */
  abandon(): void {
    if (!this.ended) abandon(this.ctx, this.exchange);
  }
}
