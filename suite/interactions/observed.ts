/**
 * From what the client saw to what the model reads: one operation per request, its outcome,
 * and the single-answer judgements (shape, event stream) that hold whatever the state. An
 * answer the spec allows to be undecided (a 5xx, an `error` event, a stream that broke off,
 * a timeout) becomes an unknown outcome, never a verdict.
 */
import type { z } from "zod";
import { errorCode, SpecCompletedEvent, SpecMessagePage, SpecResponseResult, EVENT } from "../../schemas/index.ts";
import { cutShort, ExpectationError, is2xx } from "../judgements/expect.ts";
import { HarnessError, InconclusiveError } from "../http/errors.ts";
import type { HttpResult, StreamResult } from "../http/types.ts";
import { ANSWER_RULES, type PlainAnswer } from "../judgements/answer-rules.ts";
import { STREAM_RULES } from "../judgements/stream-rules.ts";
import { canonicalJson, type CreateResult, type ListingValue, type Outcome } from "../model/operation.ts";
import { violation, type Violation } from "../model/violation.ts";

/** What came back for one request: an answer, or the error the client threw. */
export type Answer<R> = { readonly result: R } | { readonly error: unknown };

export interface Judged<T> {
  readonly outcome: Outcome<T>;
  /** What the answer alone shows wrong (a create that is not a response result, a broken stream). */
  readonly problem?: Violation | undefined;
}

/** Errors that mean "the target did not let us know": anything but the harness's own failure. */
function unknownFromError(error: unknown): Outcome<never> {
  // The harness failing, or the check's own time running out, is not the target's answer.
  if (error instanceof HarnessError) throw error;
  if (error instanceof InconclusiveError && error.flag === "--check-timeout") throw error;
  if (error instanceof InconclusiveError && error.kind === "retries") {
    const status = error.transcript?.response?.status;
    if (status === 429) return { type: "refused", status, code: undefined };
    return { type: "unknown", status, reason: error.message };
  }
  return { type: "unknown", status: undefined, reason: error instanceof Error ? error.message : String(error) };
}

function refusedOrUnknown(http: HttpResult): Outcome<never> {
  if (http.status >= 400 && http.status < 500) return { type: "refused", status: http.status, code: errorCode(http.json) };
  return { type: "unknown", status: http.status, reason: `answered ${http.status}` };
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
      if (error instanceof ExpectationError) return violation(rule.id, `#${index}: ${error.what}`, [index]);
      throw error;
    }
  }
  return undefined;
}

/** How one endpoint's plain answer is read: what the rules call it, and the value its body holds. */
interface PlainReading<S extends z.ZodType, T> {
  readonly to: PlainAnswer["to"];
  /** Names the answer in a problem's message. */
  readonly context: string;
  readonly schema: S;
  /** The unknown outcome's reason when the body is not what the endpoint answers with. */
  readonly unreadable: string;
  readonly value: (body: z.output<S>) => T;
}

/** A 2xx answer is read once the rules that read its body held; the first one it breaks is its problem. */
function judgePlain<S extends z.ZodType, T>(answer: Answer<HttpResult>, index: number, reading: PlainReading<S, T>): Judged<T> {
  if ("error" in answer) return { outcome: unknownFromError(answer.error) };
  const http = answer.result;
  if (!is2xx(http.status)) return { outcome: refusedOrUnknown(http) };
  const problem = answerProblem({ to: reading.to, http }, index, reading.context);
  const parsed = reading.schema.safeParse(http.json);
  if (problem !== undefined || !parsed.success) return { outcome: { type: "unknown", status: http.status, reason: reading.unreadable }, problem };
  return { outcome: { type: "ok", status: http.status, value: reading.value(parsed.data) } };
}

export function judgePlainCreate(answer: Answer<HttpResult>, index: number): Judged<CreateResult> {
  return judgePlain(answer, index, {
    to: "create",
    context: "the create",
    schema: SpecResponseResult,
    unreadable: "not a response result",
    value: ({ conversation_id, response, citations }) => ({ conversationId: conversation_id, text: response, citations: canonicalJson(citations) }),
  });
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
      if (error instanceof ExpectationError) return violation(rule.id, `#${index}: ${error.what}`, [index]);
      if (error instanceof InconclusiveError) return undefined;
      throw error;
    }
  }
  return undefined;
}

export function judgeStreamCreate(answer: Answer<StreamResult>, index: number): Judged<CreateResult> {
  if ("error" in answer) return { outcome: unknownFromError(answer.error) };
  const s = answer.result;
  if (s.http !== undefined && !is2xx(s.status)) return { outcome: refusedOrUnknown(s.http) };
  if (!is2xx(s.status)) return { outcome: { type: "unknown", status: s.status, reason: `answered ${s.status}` } };
  const cut = cutShort(s);
  if (cut !== undefined) return { outcome: { type: "unknown", status: s.status, reason: `${cut.kind}: ${cut.detail}` } };
  const problem = streamProblem(s, index);
  if (s.terminal !== EVENT.completed) {
    return { outcome: { type: "unknown", status: s.status, reason: s.terminal === EVENT.error ? "the stream ended with an error event" : "the stream broke off" }, problem };
  }
  const completed = SpecCompletedEvent.safeParse(s.events.find((e) => e.event === EVENT.completed)?.json);
  if (!completed.success) return { outcome: { type: "unknown", status: s.status, reason: "no readable response.completed" }, problem };
  const { conversation_id, output_text, citations } = completed.data.response;
  return { outcome: { type: "ok", status: s.status, value: { conversationId: conversation_id, text: output_text, citations: canonicalJson(citations) } }, problem };
}

export function judgeListing(answer: Answer<HttpResult>, index: number): Judged<ListingValue> {
  return judgePlain(answer, index, {
    to: "list",
    context: "the listing",
    schema: SpecMessagePage,
    unreadable: "not a listing page",
    value: (p) => ({ conversationId: p.conversation.id, page: p.page, pageSize: p.page_size, total: p.total, hasMore: p.has_more, items: p.items, createdAt: p.conversation.created_at, updatedAt: p.conversation.updated_at }),
  });
}

export function judgeDeletion(answer: Answer<HttpResult>): Judged<null> {
  if ("error" in answer) return { outcome: unknownFromError(answer.error) };
  const http = answer.result;
  if (is2xx(http.status)) return { outcome: { type: "ok", status: http.status, value: null } };
  return { outcome: refusedOrUnknown(http) };
}
