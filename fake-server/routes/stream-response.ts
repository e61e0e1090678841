import type { ServerResponse } from "node:http";
import { EVENT } from "../../schemas/index.ts";
import type { AppContext, FakeRequest } from "../context.ts";
import { exchangeAnswer } from "../answers/exchange-answer.ts";
import { deltasOf, splitIntoDeltas } from "../answers/split.ts";
import { abandon, commitAnswered, commitFailed, conversationFor, refusedAfterCommit } from "../commit/commit.ts";
import { updatedAtKeeper } from "../commit/frozen-updated-at.ts";
import { stillCurrent, versionAtStart } from "../commit/optimistic-lock.ts";
import { playStream, type StreamDelays, type StreamScript } from "../commit/play-stream.ts";
import { authenticatedByBody } from "../exchange/auth-by-conversation.ts";
import { checkExchangeHeaders, prepareExchange, readExchangeBody, type FreshExchange, type PreparedExchange } from "../exchange/prepare.ts";
import type { FaultPlan } from "../faults/fault-plan.ts";
import { successStatus } from "../http/respond.ts";
import { ApiError } from "../http/api-error.ts";
import { endEventStream, startEventStream, writeEvent } from "../http/sse.ts";
import { readAtStart, writeBack } from "../commit/write-back.ts";
import { deliveryWatch } from "../idempotency/dropped-streams.ts";
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
    complete: () => ({ conversation_id: result.conversation_id, output_text: result.response, citations: result.citations }),
    fail: () => {
      if (!failure) throw new Error("the replay of a completed exchange reached an error point");
      return failure;
    },
  };
}

function freshScript(ctx: AppContext, req: FakeRequest, exchange: FreshExchange, faults: FaultPlan): StreamScript {
  const answer = exchangeAnswer(ctx, req, exchange.caller.agentId, exchange.request.message);
  // The conversation exists from response.created on, so the id it announces is real.
  const conversationId = conversationFor(ctx, exchange);
  // Mutants only: what the exchange read of its conversation when it started.
  const version = versionAtStart(ctx, "stream", exchange);
  const read = readAtStart(ctx, conversationId);
  return {
    conversationId,
    deltas: deltasOf(answer, ctx.options.seed, ctx.behavior),
    errorAfter: faults.errorAfter,
    dropAfter: faults.dropAfter,
    complete: () => {
      const current = stillCurrent(ctx, version);
      writeBack(ctx, read);
      const restoreUpdatedAt = updatedAtKeeper(ctx, conversationId);
      const { result } = commitAnswered(ctx, exchange, conversationId, answer, ctx.behavior.broken.streamStored && current);
      restoreUpdatedAt?.();
      return { conversation_id: result.conversation_id, output_text: result.response, citations: result.citations };
    },
    fail: (deltasSent) => {
      const failure = {
        deltasBeforeError: deltasSent,
        code: "agent_failed" as const,
        message:
          `the agent failed after ${deltasSent} deltas (error-after injected on purpose); ` +
          "replays of this Idempotency-Key give the same error, use a new key to try again",
      };
      commitFailed(ctx, exchange, conversationId, answer, failure);
      return failure;
    },
  };
}

/** POST /v1/agents/:agent_id/responses/stream */
export async function streamResponse(ctx: AppContext, req: FakeRequest, res: ServerResponse): Promise<void> {
  let prepared: PreparedExchange;
  try {
    // Mutant only: a request without a valid key authenticated by the conversation its body
    // names. Awaited only then: the conforming path keeps its one level of promises per stream.
    const early = req.refusedKey === undefined ? undefined : await authenticatedByBody(ctx, req);
    const headers = checkExchangeHeaders(ctx, req);
    prepared = prepareExchange(ctx, req, "stream", headers, early === undefined ? await readExchangeBody(ctx, req) : early.body);
  } catch (error) {
    // Mutant only: a validation failure becomes a 200 event stream holding one error event.
    if (!(ctx.behavior.broken.streamValidationAsEvents && error instanceof ApiError && error.status === 400)) throw error;
    startEventStream(res, ctx.behavior, 200);
    writeEvent(res, ctx.behavior, { type: EVENT.error, code: error.code, message: error.message });
    endEventStream(res);
    return;
  }
  const status = successStatus(ctx.behavior, "stream");
  const delays = delaysOf(ctx, prepared.faults, prepared.kind === "fresh");
  if (prepared.kind === "replay") {
    const script = replayScript(ctx, prepared.outcome);
    startEventStream(res, ctx.behavior, status, { "Idempotent-Replayed": "true" });
    ctx.clientRules.streamEnded(req.observed, await playStream(ctx, res, script, delays));
    return;
  }
  const { exchange } = prepared;
  try {
    if (exchange.refuseAfterCommit) {
      throw refusedAfterCommit(ctx, exchange, conversationFor(ctx, exchange), exchangeAnswer(ctx, req, exchange.caller.agentId, exchange.request.message));
    }
    const script = freshScript(ctx, req, exchange, prepared.faults);
    // Mutants only: the key of a stream whose client left before the end is mishandled.
    const delivered = deliveryWatch(ctx.behavior, res, exchange.reservation);
    startEventStream(res, ctx.behavior, status);
    const ended = await playStream(ctx, res, script, delays);
    ctx.clientRules.streamEnded(req.observed, ended);
    if (ended === "completed") delivered?.();
  } catch (error) {
    abandon(ctx, exchange);
    throw error;
  }
}
