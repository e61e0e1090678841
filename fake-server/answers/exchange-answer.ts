import type { AppContext, FakeRequest } from "../context.ts";
import type { Answer } from "./engine.ts";
import { styledAnswer } from "./style.ts";

/**
 * What the agent answers a new exchange: the oldest matching answer rule of the session
 * (named in the request log), else the engine's answer as this behavior delivers it.
 */
export function exchangeAnswer(ctx: AppContext, req: FakeRequest, agentId: string, message: string): Answer {
  const rule = ctx.answerRules.answerFor(agentId, message);
  if (rule === undefined) return styledAnswer(ctx, message);
  req.answerRule = rule.id;
  return rule.scripted;
}
