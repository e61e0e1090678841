import type { ServerResponse } from "node:http";
import { exchangeAnswer } from "../answers/exchange-answer.ts";
import { deltasOf } from "../answers/split.ts";
import type { Behavior } from "../behavior/behavior.ts";
import type { AppContext, FakeRequest } from "../context.ts";
import { streamLengthMs } from "../deployment/pacing.ts";
import { abandon, commitAnswered, conversationFor, refusedAfterCommit, type AnsweredOutcome } from "../commit/commit.ts";
import { stillCurrent, versionAtStart } from "../commit/optimistic-lock.ts";
import { pauseBeforeAnswer } from "../pause/pause.ts";
import { checkExchangeHeaders, prepareExchange, readExchangeBody } from "../exchange/prepare.ts";
import { readAtStart, writeBack } from "../commit/write-back.ts";
import { withExtraFields, withExtraFieldsText } from "../http/extra-fields.ts";
import { sendError, sendJsonParts, sendJsonText, successStatus } from "../http/respond.ts";
import { storedResult } from "../idempotency/stored-result.ts";
import type { StoredOutcome } from "../idempotency/store.ts";

const REPLAYED = { "Idempotent-Replayed": "true" } as const;

/**
 * Sends the result as this behavior does: the stored serialisation itself, unless a mutant
 * drops the dashes from its conversation_id or the extra-fields variant adds fields.
 */
function sendResult(res: ServerResponse, behavior: Behavior, committed: AnsweredOutcome): void {
  const status = successStatus(behavior, "create");
  if (!behavior.broken.createIdNotUuid && !behavior.extraFields) {
    sendJsonParts(res, status, committed.head, committed.tailBytes);
    return;
  }
  const { result } = committed;
  const shown = behavior.broken.createIdNotUuid ? { ...result, conversation_id: result.conversation_id.replaceAll("-", "") } : result;
  sendJsonText(res, status, JSON.stringify(withExtraFields(behavior, shown)));
}

/**
 * A stored result sent again, byte for byte. Two mutants: one consumes the operation again,
 * one regenerates the answer's text.
 */
function replayText(ctx: AppContext, message: string, outcome: Extract<StoredOutcome, { kind: "answered" }>): string {
  const { broken } = ctx.behavior;
  if (!broken.replayAppends && !broken.replayAltersAnswer) return withExtraFieldsText(ctx.behavior, outcome.body);
  const result = storedResult(outcome);
  if (broken.replayAppends) ctx.conversations.appendExchange(result.conversation_id, message, result.response, result.citations);
  const response = broken.replayAltersAnswer ? `${result.response} (regenerated)` : result.response;
  return JSON.stringify(withExtraFields(ctx.behavior, { ...result, response }));
}

/** POST /v1/agents/:agent_id/responses */
export async function createResponse(ctx: AppContext, req: FakeRequest, res: ServerResponse): Promise<void> {
  const headers = checkExchangeHeaders(ctx, req);
  const prepared = prepareExchange(ctx, req, "create", headers, await readExchangeBody(ctx, req));
  if (prepared.kind === "replay") {
    const pausing = pauseBeforeAnswer(ctx, prepared.faults.firstEventDelayMs, res);
    if (pausing) await pausing;
    const { outcome } = prepared;
    if (outcome.kind === "answered") {
      sendJsonText(res, outcome.status, replayText(ctx, prepared.request.message, outcome), REPLAYED);
    } else {
      sendError(
        res,
        ctx.behavior,
        502,
        outcome.code,
        `the streamed exchange first run under this Idempotency-Key failed (${outcome.message}); ` +
          "use a new key to run it again",
        REPLAYED,
      );
    }
    return;
  }
  const { exchange, faults } = prepared;
  // Mutants only: what a continuation read of its conversation when it started.
  const version = versionAtStart(ctx, "create", exchange);
  const read = exchange.conversationId === undefined ? undefined : readAtStart(ctx, exchange.conversationId);
  try {
    const answer = exchangeAnswer(ctx, req, exchange.caller.agentId, exchange.request.message);
    // Paced (llm-pacing): as long as the stream of this answer would take.
    const thinkingMs = faults.paced
      ? streamLengthMs(faults.firstEventDelayMs, faults.deltaDelayMs ?? ctx.options.deltaDelayMs, deltasOf(answer, ctx.options.seed, ctx.behavior).length)
      : faults.firstEventDelayMs;
    // A client that hangs up during the pause does not cancel the exchange: it completes now.
    const pausing = pauseBeforeAnswer(ctx, thinkingMs + ctx.behavior.createLatencyMs, res);
    if (pausing) await pausing;
    const conversationId = conversationFor(ctx, exchange);
    if (exchange.refuseAfterCommit) throw refusedAfterCommit(ctx, exchange, conversationId, answer);
    const current = stillCurrent(ctx, version);
    writeBack(ctx, read);
    sendResult(res, ctx.behavior, commitAnswered(ctx, exchange, conversationId, answer, current));
  } catch (error) {
    abandon(ctx, exchange);
    throw error;
  }
}
