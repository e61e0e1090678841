import type { AppContext } from "../context.ts";
import type { Answer } from "./engine.ts";

/** Ends every answer under the split-writes variant: two-, three- and four-byte UTF-8 characters. */
const MULTIBYTE_SENTENCE = "Merci, à bientôt — 日本語でも ☕ 👋🏽.";
const NO_CITATIONS: Answer["citations"] = Object.freeze([]);

/**
 * The engine's answer to a message, as this behavior delivers it: with a sentence of
 * multi-byte characters appended, and without citations, when the variants ask for it.
 */
export function styledAnswer(ctx: Pick<AppContext, "engine" | "behavior">, message: string): Answer {
  const answer = ctx.engine.answer(message);
  const text = ctx.behavior.multibyteAnswers ? `${answer.text} ${MULTIBYTE_SENTENCE}` : answer.text;
  const citations = ctx.behavior.citations ? answer.citations : NO_CITATIONS;
  return text === answer.text && citations === answer.citations ? answer : { text, citations };
}
