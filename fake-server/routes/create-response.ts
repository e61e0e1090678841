import type { ServerResponse } from "node:http";
import type { ResponseResult } from "../../schemas/index.ts";
import { styledAnswer } from "../answers/style.ts";
import type { Behavior } from "../behavior.ts";
import type { AppContext, FakeRequest } from "../context.ts";
import { abandon, commitAnswered, conversationFor, storedResult } from "../exchange/commit.ts";
import { pause } from "../exchange/pause.ts";
import { prepareExchange } from "../exchange/prepare.ts";
import { clientGoneSignal } from "../http/disconnect.ts";
import { withExtraFields, withExtraFieldsText } from "../http/extra-fields.ts";
import { sendError, sendJson, sendJsonText, successStatus } from "../http/respond.ts";
import type { StoredOutcome } from "../idempotency/store.ts";

const REPLAYED = { "Idempotent-Replayed": "true" } as const;

/** The result as this behavior sends it; a mutant drops the dashes from its conversation_id. */
function presented(behavior: Behavior, result: ResponseResult): ResponseResult {
  const shown = behavior.broken.createIdNotUuid ? { ...result, conversation_id: result.conversation_id.replaceAll("-", "") } : result;
  return withExtraFields(behavior, shown);
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
  const prepared = await prepareExchange(ctx, req, "create");
  const gone = clientGoneSignal(res);
  if (prepared.kind === "replay") {
    await pause(ctx, prepared.faults.firstEventDelayMs, gone);
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
  const { exchange } = prepared;
  try {
    // A client that hangs up during the pause does not cancel the exchange: it completes now.
    await pause(ctx, prepared.faults.firstEventDelayMs + ctx.behavior.createLatencyMs, gone);
    const answer = styledAnswer(ctx, exchange.request.message);
    const result = commitAnswered(ctx, exchange, conversationFor(ctx, exchange), answer);
    sendJson(res, successStatus(ctx.behavior, "create"), presented(ctx.behavior, result));
  } catch (error) {
    abandon(ctx, exchange);
    throw error;
  }
}
