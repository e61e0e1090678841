/**
 * Answer rules (`POST /__fake/answers`, `--answers`): a client developer scripts what the agent
 * answers to matching messages (text, citations, deltas, how many times). A list of rules is
 * checked whole before any is kept, so one bad rule adds nothing.
 */
import { z } from "zod";
import type { Answer } from "./engine.ts";
import { asStoredCitations, ScriptedCitation } from "./scripted-citation.ts";
import { ApiError } from "../http/api-error.ts";
import { parseControlBody } from "../rules/control-body.ts";
import { idSequence, RuleBook, type RuleState } from "../rules/rule-book.ts";

/** Long enough for any realistic scripted answer, short enough that a rule cannot eat the heap. */
const MAX_TEXT = 100_000;

const AnswerRuleBody = z.strictObject({
  match: z
    .strictObject({
      agent: z.string().min(1).optional(),
      message_contains: z.string().min(1).optional(),
      message_regex: z.string().min(1).max(1_000).optional(),
    })
    .default({}),
  answer: z.strictObject({
    text: z.string().min(1).max(MAX_TEXT),
    // Any JSON object: a client developer scripts the citations their own service sends.
    citations: z.array(ScriptedCitation).max(100).default([]),
    deltas: z.array(z.string().min(1)).min(1).max(10_000).optional(),
  }),
  times: z.int().min(0).max(1_000_000).default(0),
});
type AnswerRuleBody = z.output<typeof AnswerRuleBody>;

/** An answer rule (`POST /__fake/answers`): the agent answers matching messages with this text. */
export interface AnswerRule extends RuleState {
  readonly match: AnswerRuleBody["match"];
  readonly answer: AnswerRuleBody["answer"];
  readonly regex: RegExp | undefined;
  /** The answer as the exchange uses it: text, citations and the deltas a stream sends. */
  readonly scripted: Answer;
}

function compiled(pattern: string | undefined): RegExp | undefined {
  if (pattern === undefined) return undefined;
  try {
    return new RegExp(pattern, "u");
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new ApiError(400, "invalid_request", `answer rule: match.message_regex does not compile: ${reason}`);
  }
}

const nextAnswerId = idSequence("answer");

/** One rule checked beyond its schema: the regex compiles and the deltas are the text. */
function checkedRule(body: unknown): AnswerRuleBody & { regex: RegExp | undefined } {
  const parsed = parseControlBody(AnswerRuleBody, body, "answer rule");
  const { deltas, text } = parsed.answer;
  if (deltas !== undefined && deltas.join("") !== text) {
    throw new ApiError(400, "invalid_request", "answer rule: answer.deltas must concatenate to answer.text exactly");
  }
  return { ...parsed, regex: compiled(parsed.match.message_regex) };
}

export class AnswerRules extends RuleBook<AnswerRule> {
  constructor() {
    super(nextAnswerId);
  }

  /** Checks every body first, so a list with one bad rule adds none (`--answers`, the library option). */
  static check(bodies: readonly unknown[]): void {
    bodies.forEach((body, index) => {
      try {
        checkedRule(body);
      } catch (error) {
        if (error instanceof ApiError) throw new ApiError(400, "invalid_request", `rule ${index}: ${error.message}`);
        throw error;
      }
    });
  }

  addFromBody(body: unknown): AnswerRule {
    const parsed = checkedRule(body);
    const { text, deltas } = parsed.answer;
    const citations = asStoredCitations(parsed.answer.citations);
    return this.add((id) => ({
      id,
      match: parsed.match,
      answer: parsed.answer,
      times: parsed.times,
      remaining: parsed.times === 0 ? null : parsed.times,
      applied: 0,
      regex: parsed.regex,
      scripted: deltas === undefined ? { text, citations } : { text, citations, deltas },
    }));
  }

  /** The oldest rule matching a new exchange's message, counted down; undefined when none does. */
  answerFor(agent: string, message: string): AnswerRule | undefined {
    if (this.size === 0) return undefined;
    return this.take(
      ({ match, regex }) =>
        (match.agent === undefined || match.agent === agent) &&
        (match.message_contains === undefined || message.includes(match.message_contains)) &&
        (regex === undefined || regex.test(message)),
    );
  }
}

export function answerRuleView(rule: AnswerRule) {
  return {
    id: rule.id,
    match: rule.match,
    answer: rule.answer,
    times: rule.times,
    remaining: rule.remaining,
    applied: rule.applied,
  };
}
