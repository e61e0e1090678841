/**
 * Choosing a new exchange's answer (stage 8): the session's oldest matching answer rule, else the
 * engine's answer as the behavior styles it.
 */
import type { AnswerRules } from "./answer-rules.ts";
import type { Answer } from "./engine.ts";
import { styledAnswer, type StyleContext } from "./style.ts";

/** What choosing an answer uses: the session's answer rules, else the styled engine. */
export interface AnswerContext extends StyleContext {
  readonly answerRules: AnswerRules;
}

/**
 * What the agent answers a new exchange: the oldest matching answer rule of the session
 * (its id noted on the request, for the request log), else the engine's answer as this
 * behavior delivers it.
 */
export function exchangeAnswer(
  ctx: AnswerContext,
  req: { answerRule?: string },
  agentId: string,
  message: string,
): Answer {
  const rule = ctx.answerRules.answerFor(agentId, message);
  if (rule === undefined) return styledAnswer(ctx, message);
  req.answerRule = rule.id;
  return rule.scripted;
}
