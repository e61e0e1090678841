/**
 * `POST /v1/agents/:agent_id/responses/stream`, the streamed create: `beginExchange` runs the
 * exchange, and this route plays it as server-sent events, a fresh answer as it is produced or a
 * replay of the stored one.
 */
import type { ServerResponse } from "node:http";
import { EVENT } from "../../schemas/index.ts";
import type { AppContext, FakeRequest } from "../context.ts";
import { deltasOf, splitIntoDeltas } from "../answers/split.ts";
import { playStream, type StreamDelays, type StreamScript } from "../commit/play-stream.ts";
import type { FaultPlan } from "../faults/fault-plan.ts";
import { successStatus } from "../http/respond.ts";
import { ApiError } from "../http/api-error.ts";
import { endEventStream, startEventStream, writeEvent } from "../http/sse.ts";
import { beginExchange, type Presentation } from "../lifecycle/begin-exchange.ts";
import type { RunningExchange } from "../lifecycle/running-exchange.ts";
import { storedResult } from "../idempotency/stored-result.ts";
import type { StoredOutcome } from "../idempotency/store.ts";

/** The pauses of a stream; only a fresh exchange thinks after response.created (a replay plays stored text). */
function delaysOf(ctx: AppContext, faults: FaultPlan, fresh: boolean): StreamDelays {
  return {
    firstEventMs: faults.firstEventDelayMs,
    afterCreatedMs: fresh ? ctx.behavior.streamLatencyMs : 0,
    betweenMs: faults.deltaDelayMs ?? ctx.options.deltaDelayMs,
  };
}

/** A replay re-emits the stored answer and ends as the original did; only the delays of X-Fake-Fault apply. */
function replayScript(ctx: AppContext, outcome: StoredOutcome): StreamScript {
  const result = storedResult(outcome);
  const failure = outcome.kind === "failed" ? outcome : undefined;
  return {
    conversationId: result.conversation_id,
    deltas: splitIntoDeltas(result.response, ctx.options.seed, ctx.behavior),
    errorAfter: failure?.deltasBeforeError,
    dropAfter: undefined,
    complete: () => ({
      conversation_id: result.conversation_id,
      output_text: result.response,
      citations: result.citations,
    }),
    fail: () => {
      if (!failure) throw new Error("the replay of a completed exchange reached an error point");
      return failure;
    },
  };
}

/** A fresh exchange played as it is produced: it commits on reaching response.completed, or fails at its error point. */
function freshScript(ctx: AppContext, exchange: RunningExchange): StreamScript {
  const { faults } = exchange;
  return {
    // The conversation exists from response.created on, so the id it announces is real.
    conversationId: exchange.conversationId(),
    deltas: deltasOf(exchange.answer, ctx.options.seed, ctx.behavior),
    errorAfter: faults.errorAfter,
    dropAfter: faults.dropAfter,
    complete: () => {
      const { result } = exchange.commit();
      return { conversation_id: result.conversation_id, output_text: result.response, citations: result.citations };
    },
    fail: (deltasSent) => exchange.fail(deltasSent),
  };
}

/** The exchange as server-sent events, written as they are produced. */
const AS_EVENTS: Presentation = {
  refused(ctx, res, error) {
    // Mutant only: a validation failure becomes a 200 event stream holding one error event.
    if (!(ctx.behavior.broken.streamValidationAsEvents && error instanceof ApiError && error.status === 400))
      return false;
    startEventStream(res, ctx.behavior, 200);
    writeEvent(res, ctx.behavior, { type: EVENT.error, code: error.code, message: error.message });
    endEventStream(res);
    return true;
  },

  async replay(ctx, req, res, { outcome, faults }) {
    const script = replayScript(ctx, outcome);
    startEventStream(res, ctx.behavior, successStatus(ctx.behavior, "stream"), { "Idempotent-Replayed": "true" });
    ctx.clientRules.streamEnded(req.observed, await playStream(ctx, res, script, delaysOf(ctx, faults, false)));
  },

  async fresh(ctx, req, res, exchange) {
    const script = freshScript(ctx, exchange);
    startEventStream(res, ctx.behavior, successStatus(ctx.behavior, "stream"));
    ctx.clientRules.streamEnded(req.observed, await playStream(ctx, res, script, delaysOf(ctx, exchange.faults, true)));
  },
};

/** POST /v1/agents/:agent_id/responses/stream */
export function streamResponse(ctx: AppContext, req: FakeRequest, res: ServerResponse): Promise<void> {
  return beginExchange(ctx, req, res, "stream", AS_EVENTS);
}
