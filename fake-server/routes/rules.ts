/**
 * /__fake/faults and /__fake/answers: the rules of one session (`?session=`), for apps that
 * cannot add X-Fake-Fault and for tests that script what the agent says.
 */
import type { ServerResponse } from "node:http";
import type { AppContext, FakeRequest } from "../context.ts";
import { ApiError } from "../http/api-error.ts";
import { sendEmpty, sendJson } from "../http/respond.ts";
import { answerRuleView } from "../answers/answer-rules.ts";
import { faultRuleView } from "../faults/fault-rules.ts";
import type { RuleBook, RuleState } from "../rules/rule-book.ts";
import { controlBody } from "./control-body.ts";

/** POST /__fake/faults */
export async function addFaultRule(ctx: AppContext, req: FakeRequest, res: ServerResponse): Promise<void> {
  const body = await controlBody(ctx, req);
  if (!ctx.options.faults) {
    throw new ApiError(
      400,
      "invalid_request",
      "fault injection is disabled on this server (--no-faults); fault rules cannot be added",
    );
  }
  sendJson(res, 201, faultRuleView(ctx.faultRules.addFromBody(body)));
}

/** GET /__fake/faults */
export function listFaultRules(ctx: AppContext, _req: FakeRequest, res: ServerResponse): void {
  sendJson(res, 200, { faults: ctx.faultRules.list().map(faultRuleView) });
}

/** POST /__fake/answers */
export async function addAnswerRule(ctx: AppContext, req: FakeRequest, res: ServerResponse): Promise<void> {
  const body = await controlBody(ctx, req);
  sendJson(res, 201, answerRuleView(ctx.answerRules.addFromBody(body)));
}

/** GET /__fake/answers */
export function listAnswerRules(ctx: AppContext, _req: FakeRequest, res: ServerResponse): void {
  sendJson(res, 200, { answers: ctx.answerRules.list().map(answerRuleView) });
}

type Book = (ctx: AppContext) => RuleBook<RuleState>;

/** DELETE /__fake/{faults,answers}: every rule of the session. */
export function clearRules(book: Book) {
  return (ctx: AppContext, _req: FakeRequest, res: ServerResponse): void => {
    book(ctx).clear();
    sendEmpty(res, 204);
  };
}

/** DELETE /__fake/{faults,answers}/:rule_id: one rule; 404 when the session has none of that id. */
export function removeRule(book: Book, kind: string) {
  return (ctx: AppContext, req: FakeRequest, res: ServerResponse): void => {
    const id = req.params["rule_id"] ?? "";
    if (!book(ctx).remove(id)) {
      throw new ApiError(
        404,
        "not_found",
        `no ${kind} rule ${JSON.stringify(id.slice(0, 80))} in session ${JSON.stringify(ctx.session.name)}`,
      );
    }
    sendEmpty(res, 204);
  };
}

export const faultBook: Book = (ctx) => ctx.faultRules;
export const answerBook: Book = (ctx) => ctx.answerRules;
