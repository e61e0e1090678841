/**
 * The variants' styling of the engine's answers (a sentence of multi-byte characters appended, the
 * citations dropped), so the engine itself stays one for every behavior.
 */
import type { Behavior } from "../behavior/behavior.ts";
import type { Answer, AnswerEngine } from "./engine.ts";

/** Ends every answer under the split-writes variant: two-, three- and four-byte UTF-8 characters. */
const MULTIBYTE_SENTENCE = "Merci, à bientôt — 日本語でも ☕ 👋🏽.";
const NO_CITATIONS: Answer["citations"] = Object.freeze([]);

/** What styling an answer uses: the engine, and the two choices of the behavior that change its answers. */
export interface StyleContext {
  readonly engine: AnswerEngine;
  readonly behavior: Pick<Behavior, "multibyteAnswers" | "citations">;
}

/**
 * The engine's answer to a message, as this behavior delivers it: with a sentence of
 * multi-byte characters appended, and without citations, when the variants ask for it.
 */
export function styledAnswer(ctx: StyleContext, message: string): Answer {
  const answer = ctx.engine.answer(message);
  const text = ctx.behavior.multibyteAnswers ? `${answer.text} ${MULTIBYTE_SENTENCE}` : answer.text;
  const citations = ctx.behavior.citations ? answer.citations : NO_CITATIONS;
  return text === answer.text && citations === answer.citations ? answer : { text, citations };
}
