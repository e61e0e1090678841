/**
 * From what the client saw to what the model reads: one operation per request, its outcome
 * (read as the traffic judge reads it: suite/model/answer-outcome.ts), and the single-answer
 * judgements (shape, event stream) that hold whatever the state. An answer the spec allows to
 * be undecided (a 5xx, an `error` event, a stream that broke off, a timeout) becomes an unknown
 * outcome, never a verdict.
 */
import { cutShort, ExpectationError, is2xx } from "../judgements/expect.ts";
import { InconclusiveError } from "../http/errors.ts";
import type { HttpResult, StreamResult } from "../http/types.ts";
import { ANSWER_RULES, type PlainAnswer } from "../judgements/answer-rules.ts";
import { STREAM_RULES } from "../judgements/stream-rules.ts";
import {
  readDeletion,
  readListing,
  readPlainCreate,
  readStreamCreate,
  type Answer,
  type ReadAnswer,
} from "../model/answer-outcome.ts";
import type { CreateResult, ListingValue, Outcome } from "../model/operation.ts";
import { violation, words, type Violation } from "../model/violation.ts";

export type { Answer } from "../model/answer-outcome.ts";

export interface Judged<T> {
  readonly outcome: Outcome<T>;
  /** What the answer alone shows wrong (a create that is not a response result, a broken stream). */
  readonly problem?: Violation | undefined;
}

/**
 * The first rule of the answer table that the 2xx answer's body breaks: only those that read the
 * body as such, since what a served page says (the conversation it names, its echo and its
 * arithmetic) is the model's to judge (suite/model/page.ts).
 */
function answerProblem(a: PlainAnswer, index: number, context: string): Violation | undefined {
  for (const rule of ANSWER_RULES) {
    if (rule.reads !== "body" || !rule.when(a)) continue;
    try {
      rule.judge(a, context);
    } catch (error) {
      if (error instanceof ExpectationError) return violation(rule.id, words`#${index}: ${error.what}`, [index]);
      throw error;
    }
  }
  return undefined;
}

/** A plain answer as the model reads it, with the first answer rule its 2xx body breaks: then its outcome is unknown. */
function judgedPlain<T>(
  answer: Answer<HttpResult>,
  index: number,
  to: PlainAnswer["to"],
  context: string,
  read: ReadAnswer<T>,
  unreadable: string,
): Judged<T> {
  if (!("result" in answer) || !is2xx(answer.result.status)) return { outcome: read.outcome };
  const problem = answerProblem({ to, http: answer.result }, index, context);
  if (problem === undefined) return { outcome: read.outcome };
  return {
    outcome:
      read.outcome.type === "ok" ? { type: "unknown", status: answer.result.status, reason: unreadable } : read.outcome,
    problem,
  };
}

export function judgePlainCreate(answer: Answer<HttpResult>, index: number): Judged<CreateResult> {
  return judgedPlain(answer, index, "create", "the create", readPlainCreate(answer), "not a response result");
}

/**
 * The first single-stream rule the stream breaks, whatever the rule `reads`: the harness read
 * this body itself and one its own timeouts cut short never gets here, so a body that did not
 * end was cut by the service or the network.
 */
function streamProblem(s: StreamResult, index: number): Violation | undefined {
  for (const rule of STREAM_RULES) {
    if (!rule.when(s)) continue;
    try {
      rule.judge(s, "the stream");
    } catch (error) {
      if (error instanceof ExpectationError) return violation(rule.id, words`#${index}: ${error.what}`, [index]);
      if (error instanceof InconclusiveError) return undefined;
      throw error;
    }
  }
  return undefined;
}

export function judgeStreamCreate(answer: Answer<StreamResult>, index: number): Judged<CreateResult> {
  const { outcome } = readStreamCreate(answer);
  // Only a 2xx stream the service ended (not one the harness's own timeouts cut short) is judged by the stream rules.
  if (!("result" in answer) || !is2xx(answer.result.status) || cutShort(answer.result) !== undefined)
    return { outcome };
  return { outcome, problem: streamProblem(answer.result, index) };
}

export function judgeListing(answer: Answer<HttpResult>, index: number): Judged<ListingValue> {
  return judgedPlain(answer, index, "list", "the listing", readListing(answer), "not a listing page");
}

export function judgeDeletion(answer: Answer<HttpResult>): Judged<null> {
  return readDeletion(answer);
}
