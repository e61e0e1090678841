/**
 * From what the client saw to what the model reads: one operation per request, its outcome
 * (read as the traffic judge reads it: suite/model/answer-outcome.ts), and the single-answer
 * judgements (shape, event stream) that hold whatever the state. An answer the spec allows to
 * be undecided (a 5xx, an `error` event, a stream that broke off, a timeout) becomes an unknown
 * outcome, never a verdict.
 */
import { ExpectationError } from "../judgements/expect.ts";
import { InconclusiveError } from "../http/errors.ts";
import type { HttpResult, StreamResult } from "../http/types.ts";
import { cutShort } from "../judgements/expect.ts";
import { STREAM_RULES } from "../judgements/stream-rules.ts";
import { readDeletion, readListing, readPlainCreate, readStreamCreate, type Answer } from "../model/answer-outcome.ts";
import type { CreateResult, ListingValue, Outcome } from "../model/operation.ts";
import { violation, words, type Violation } from "../model/violation.ts";

export type { Answer } from "../model/answer-outcome.ts";

export interface Judged<T> {
  readonly outcome: Outcome<T>;
  /** What the answer alone shows wrong (a create that is not a response result, a broken stream). */
  readonly problem?: Violation | undefined;
}

const is2xx = (status: number) => status >= 200 && status < 300;

export function judgePlainCreate(answer: Answer<HttpResult>, index: number): Judged<CreateResult> {
  const { outcome, unreadable } = readPlainCreate(answer);
  if (unreadable !== true || !("result" in answer)) return { outcome };
  const http = answer.result;
  return { outcome, problem: violation("RESP-1", words`#${index} answered ${http.status} with a body that is not a response result: ${http.text.slice(0, 200)}`, [index], words`{conversation_id: UUID, response: string, citations: array}`) };
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
  if (!("result" in answer) || !is2xx(answer.result.status) || cutShort(answer.result) !== undefined) return { outcome };
  return { outcome, problem: streamProblem(answer.result, index) };
}

export function judgeListing(answer: Answer<HttpResult>, index: number): Judged<ListingValue> {
  const { outcome, unreadable } = readListing(answer);
  if (unreadable !== true || !("result" in answer)) return { outcome };
  const http = answer.result;
  return { outcome, problem: violation("LIST-1", words`#${index} answered ${http.status} with a body that is not a listing page: ${http.text.slice(0, 200)}`, [index], words`{conversation, items, page, page_size, total, has_more}`) };
}

export function judgeDeletion(answer: Answer<HttpResult>): Judged<null> {
  return readDeletion(answer);
}
