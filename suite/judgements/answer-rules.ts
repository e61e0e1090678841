/**
 * The single-answer rules of plain answers, RESP-1, LIST-1, LIST-5 and LIST-3, once: which
 * requirement each judgement holds and which answers can show it. The traffic judge and the
 * interaction property loop over this table, and the active checks take each rule's judgement
 * from it; each decides for itself which of the rules it reads (see `reads`).
 */
import { SpecMessagePage } from "../../schemas/index.ts";
import type { HttpResult } from "../http/types.ts";
import { judgeCreateAnswer, judgeListingAnswer, judgePageArithmetic, judgePageCap } from "./answers.ts";
import { expectJson } from "./expect.ts";
import { ruleOf, type Rule } from "./rules.ts";

/** A plain (non-stream) answer, and the request it answers. */
export interface PlainAnswer {
  /** A create, or a listing. */
  readonly to: "create" | "list";
  readonly http: HttpResult;
  /**
   * The conversation a listing asked for; without it LIST-1 judges the page's shape alone
   * (the interaction property leaves the conversation a page names to its model).
   */
  readonly conversationId?: string | undefined;
}

export interface AnswerRule extends Rule<PlainAnswer> {
  /**
   * What of the answer the rule needs: its body as such (the shape the endpoint answers with),
   * or a listing's body once the rules that read the body held (a page of the conversation asked for).
   */
  readonly reads: "body" | "page";
}

/** The page a listing's body holds (a rule that reads a page is judged once LIST-1 held). */
const pageOf = (a: PlainAnswer, context: string) => expectJson(SpecMessagePage, a.http, context);

/** In the order a single verdict is wanted: the first rule an answer breaks is the one reported. */
export const ANSWER_RULES = [
  {
    id: "RESP-1",
    reads: "body",
    when: (a) => a.to === "create",
    judge: (a, context) => void judgeCreateAnswer(a.http, context),
  },
  {
    id: "LIST-1",
    reads: "body",
    when: (a) => a.to === "list",
    judge: (a, context) => void judgeListingAnswer(a.http, a.conversationId, context),
  },
  {
    id: "LIST-5",
    reads: "page",
    when: (a) => a.to === "list",
    judge: (a, context) => judgePageArithmetic(pageOf(a, context), a.http, context),
  },
  {
    id: "LIST-3",
    reads: "page",
    when: (a) => a.to === "list",
    judge: (a, context) => judgePageCap(pageOf(a, context), a.http, context),
  },
] as const satisfies readonly AnswerRule[];

export type AnswerRuleId = (typeof ANSWER_RULES)[number]["id"];

/** The rule of one requirement (the table has one per id). */
export const answerRule = (id: AnswerRuleId): AnswerRule => ruleOf<AnswerRule>(ANSWER_RULES, id);
