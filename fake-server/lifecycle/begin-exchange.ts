/**
 * The one order of both create endpoints, stages 7 to 10 of app.ts's `STAGES`: the checks
 * before the body, the body, `prepareExchange`, then a replay, or a fresh exchange whose
 * answer is chosen, whose commit hooks read their start, and which the route then presents
 * until it commits, fails or is abandoned. The two routes differ only in their
 * `Presentation` (JSON or an event stream), so no rule of the fake can hold on one endpoint
 * alone; a mutant that breaks one endpoint says so in its own switch.
 */
import type { ServerResponse } from "node:http";
import { exchangeAnswer } from "../answers/exchange-answer.ts";
import { abandon, conversationFor, refusedAfterCommit } from "../commit/commit.ts";
import type { AppContext, FakeRequest } from "../context.ts";
import { authenticatedByBody } from "../exchange/auth-by-conversation.ts";
import { checkExchangeHeaders, prepareExchange, readExchangeBody, type PreparedExchange } from "../exchange/prepare.ts";
import type { FaultPlan } from "../faults/fault-plan.ts";
import type { StoredOutcome } from "../idempotency/store.ts";
import { RunningExchange } from "./running-exchange.ts";

/** A finished key sent again: its stored outcome, and the faults that may still delay it. */
export interface ReplayedExchange {
  readonly outcome: StoredOutcome;
  readonly faults: FaultPlan;
}

/** How one endpoint shows an exchange: everything the two endpoints do not share. */
export interface Presentation {
  /**
   * A refusal before the exchange began. True when it was shown here (a mutant's event
   * stream); false to answer it as every other error is answered.
   */
  refused(ctx: AppContext, res: ServerResponse, error: unknown): boolean;
  /** Sends a replay. */
  replay(ctx: AppContext, req: FakeRequest, res: ServerResponse, replayed: ReplayedExchange): Promise<void>;
  /** Pauses and answers, calling `exchange.commit()` (or `fail`) when the answer is complete. */
  fresh(ctx: AppContext, req: FakeRequest, res: ServerResponse, exchange: RunningExchange): Promise<void>;
}

/**
 * Stage 7, the checks: the agent, X-Fake-Fault and Idempotency-Key, then the body, then
 * `prepareExchange`. Not an async function: the body read's promise is chained once, with
 * no async frame of its own per create.
 */
function prepared(ctx: AppContext, req: FakeRequest, operation: "create" | "stream"): Promise<PreparedExchange> {
  // Mutant only (stream-auth-by-conversation): a request the key check let on to its body is
  // authenticated by the conversation that body names, before anything else.
  if (req.refusedKey !== undefined) {
    return authenticatedByBody(ctx, req).then((early) =>
      prepareExchange(ctx, req, operation, checkExchangeHeaders(ctx, req), early?.body),
    );
  }
  const headers = checkExchangeHeaders(ctx, req);
  return readExchangeBody(ctx, req).then((body) => prepareExchange(ctx, req, operation, headers, body));
}

/** POST /v1/agents/:agent_id/responses and …/responses/stream, presented one way or the other. */
export async function beginExchange(
  ctx: AppContext,
  req: FakeRequest,
  res: ServerResponse,
  operation: "create" | "stream",
  presentation: Presentation,
): Promise<void> {
  let found: PreparedExchange;
  try {
    found = await prepared(ctx, req, operation);
  } catch (error) {
    if (presentation.refused(ctx, res, error)) return;
    throw error;
  }
  if (found.kind === "replay") return presentation.replay(ctx, req, res, found);
  const { exchange, faults } = found;
  let running: RunningExchange | undefined;
  try {
    // Stage 8: the answer, chosen before any pause, so the presentation knows how long it is.
    const answer = exchangeAnswer(ctx, req, exchange.caller.agentId, exchange.request.message);
    // Mutant only (retry-counted-twice): stored, its key forgotten, and refused, while a plain
    // error can still be sent, on either endpoint.
    if (exchange.refuseAfterCommit) throw refusedAfterCommit(ctx, exchange, conversationFor(ctx, exchange), answer);
    running = new RunningExchange(ctx, res, exchange, faults, answer);
    // Stages 9 and 10: the presentation's pauses, then the commit or the failure.
    await presentation.fresh(ctx, req, res, running);
  } finally {
    // Whatever did not commit or fail did not take place: its key is free again.
    if (running === undefined) abandon(ctx, exchange);
    else running.abandon();
  }
}
