import type { ServerResponse } from "node:http";
import type { AppContext, FakeRequest } from "../context.ts";
import { abandon, commitAnswered, conversationFor } from "../exchange/commit.ts";
import { pause } from "../exchange/pause.ts";
import { prepareExchange } from "../exchange/prepare.ts";
import { clientGoneSignal } from "../http/disconnect.ts";
import { sendError, sendJson, sendJsonText, successStatus } from "../http/respond.ts";

const REPLAYED = { "Idempotent-Replayed": "true" } as const;

/** POST /v1/agents/:agent_id/responses */
export async function createResponse(ctx: AppContext, req: FakeRequest, res: ServerResponse): Promise<void> {
  const prepared = await prepareExchange(ctx, req);
  const gone = clientGoneSignal(res);
  if (prepared.kind === "replay") {
    await pause(ctx, prepared.faults.firstEventDelayMs, gone);
    const { outcome } = prepared;
    if (outcome.kind === "answered") {
      sendJsonText(res, outcome.status, outcome.body, REPLAYED);
    } else {
      sendError(
        res,
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
    await pause(ctx, prepared.faults.firstEventDelayMs, gone);
    const answer = ctx.engine.answer(exchange.request.message);
    const result = commitAnswered(ctx, exchange, conversationFor(ctx, exchange), answer);
    sendJson(res, successStatus(ctx.behavior, "create"), result);
  } catch (error) {
    abandon(ctx, exchange);
    throw error;
  }
}
