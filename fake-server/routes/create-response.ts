/**
 * `POST /v1/agents/:agent_id/responses`, the plain create: `beginExchange` runs the exchange, and
 * this route presents it as one JSON answer, a fresh result after its pause or a replay's stored
 * one.
 */
import type { ServerResponse } from "node:http";
import { deltasOf } from "../answers/split.ts";
import type { Behavior } from "../behavior/behavior.ts";
import type { AnsweredOutcome } from "../commit/commit.ts";
import type { AppContext, FakeRequest } from "../context.ts";
import { streamLengthMs } from "../deployment/pacing.ts";
import { withExtraFields, withExtraFieldsText } from "../http/extra-fields.ts";
import { sendError, sendJsonParts, sendJsonText, successStatus } from "../http/respond.ts";
import { beginExchange, type Presentation } from "../lifecycle/begin-exchange.ts";
import { pauseBeforeAnswer } from "../pause/pause.ts";

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
  const shown = behavior.broken.createIdNotUuid
    ? { ...result, conversation_id: result.conversation_id.replaceAll("-", "") }
    : result;
  sendJsonText(res, status, JSON.stringify(withExtraFields(behavior, shown)));
}

/** The exchange as one JSON answer: after its pause, the result, or a replay's stored one. */
const AS_JSON: Presentation = {
  refused: () => false,

  async replay(ctx, _req, res, { outcome, faults }) {
    const pausing = pauseBeforeAnswer(ctx, faults.firstEventDelayMs, res);
    if (pausing) await pausing;
    if (outcome.kind === "answered") {
      sendJsonText(res, outcome.status, withExtraFieldsText(ctx.behavior, outcome.body), REPLAYED);
      return;
    }
    sendError(
      res,
      ctx.behavior,
      502,
      outcome.code,
      `the streamed exchange first run under this Idempotency-Key failed (${outcome.message}); ` +
        "use a new key to run it again",
      REPLAYED,
    );
  },

  async fresh(ctx, _req, res, exchange) {
    const { faults, answer } = exchange;
    // Paced (llm-pacing): as long as the stream of this answer would take.
    const thinkingMs = faults.paced
      ? streamLengthMs(
          faults.firstEventDelayMs,
          faults.deltaDelayMs ?? ctx.options.deltaDelayMs,
          deltasOf(answer, ctx.options.seed, ctx.behavior).length,
        )
      : faults.firstEventDelayMs;
    // A client that hangs up during the pause does not cancel the exchange: it completes now.
    const pausing = pauseBeforeAnswer(ctx, thinkingMs + ctx.behavior.createLatencyMs, res);
    if (pausing) await pausing;
    sendResult(res, ctx.behavior, exchange.commit());
  },
};

/** POST /v1/agents/:agent_id/responses */
export function createResponse(ctx: AppContext, req: FakeRequest, res: ServerResponse): Promise<void> {
  return beginExchange(ctx, req, res, "create", AS_JSON);
}
