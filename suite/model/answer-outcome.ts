/**
 * An HTTP answer as the outcome of the operation it answers (operation.ts): the one reading of
 * both the interaction property (suite/interactions/observed.ts) and the traffic judge
 * (suite/traffic/model-ops.ts). It sits beside the model, whose steps never import it: they see
 * only the outcome.
 *
 * - A 2xx took effect (`ok`), its value read by the spec's schema; a stream, once it ended with
 *   `response.completed`.
 * - A 4xx took none (`refused`), as the spec reads it.
 * - Anything else may or may not have taken effect (`unknown`): a 5xx, an `error` event, a stream
 *   that broke off, a timeout, the client's own error. The spec allows such an answer to be
 *   undecided; it is never a verdict here.
 */
import type { z } from "zod";
import { errorCode, EVENT, SpecCompletedEvent, SpecMessagePage, SpecResponseResult } from "../../schemas/index.ts";
import { HarnessError, InconclusiveError } from "../http/errors.ts";
import type { HttpResult, StreamResult } from "../http/types.ts";
import { cutShort, is2xx } from "../judgements/expect.ts";
import { canonicalJson, type CreateResult, type ListingValue, type Outcome } from "./operation.ts";

/** What came back for one request: an answer, or the error the client threw. */
export type Answer<R> = { readonly result: R } | { readonly error: unknown };

export interface ReadAnswer<T> {
  readonly outcome: Outcome<T>;
  /**
   * Set when the answer was 2xx but its body is not what the spec's schema reads (not a response
   * result, not a listing page): the answer's own problem, for whoever reads it to judge.
   */
  readonly unreadable?: true;
}

/** Errors that mean "the target did not let us know": anything but the harness's own failure. */
function outcomeOfError(error: unknown): Outcome<never> {
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

/** A non-2xx answer: a 4xx took no effect; anything else may have. */
function outcomeOfRefusal(http: HttpResult): Outcome<never> {
  if (http.status >= 400 && http.status < 500)
    return { type: "refused", status: http.status, code: errorCode(http.json) };
  return { type: "unknown", status: http.status, reason: `answered ${http.status}` };
}

/** A plain answer: refused or unknown outside 2xx; a 2xx body the schema does not read is the answer's own problem. */
function readPlain<S extends z.ZodType, T>(
  answer: Answer<HttpResult>,
  schema: S,
  unreadable: string,
  value: (body: z.output<S>) => T,
): ReadAnswer<T> {
  if ("error" in answer) return { outcome: outcomeOfError(answer.error) };
  const http = answer.result;
  if (!is2xx(http.status)) return { outcome: outcomeOfRefusal(http) };
  const parsed = schema.safeParse(http.json);
  if (!parsed.success)
    return { outcome: { type: "unknown", status: http.status, reason: unreadable }, unreadable: true };
  return { outcome: { type: "ok", status: http.status, value: value(parsed.data) } };
}

export function readPlainCreate(answer: Answer<HttpResult>): ReadAnswer<CreateResult> {
  return readPlain(answer, SpecResponseResult, "not a response result", ({ conversation_id, response, citations }) => ({
    conversationId: conversation_id,
    text: response,
    citations: canonicalJson(citations),
  }));
}

export function readStreamCreate(answer: Answer<StreamResult>): ReadAnswer<CreateResult> {
  if ("error" in answer) return { outcome: outcomeOfError(answer.error) };
  const s = answer.result;
  if (s.http !== undefined && !is2xx(s.status)) return { outcome: outcomeOfRefusal(s.http) };
  if (!is2xx(s.status)) return { outcome: { type: "unknown", status: s.status, reason: `answered ${s.status}` } };
  const cut = cutShort(s);
  if (cut !== undefined)
    return { outcome: { type: "unknown", status: s.status, reason: `${cut.kind}: ${cut.detail}` } };
  if (s.terminal !== EVENT.completed) {
    return {
      outcome: {
        type: "unknown",
        status: s.status,
        reason: s.terminal === EVENT.error ? "the stream ended with an error event" : "the stream broke off",
      },
    };
  }
  const completed = SpecCompletedEvent.safeParse(s.events.find((e) => e.event === EVENT.completed)?.json);
  if (!completed.success)
    return { outcome: { type: "unknown", status: s.status, reason: "no readable response.completed" } };
  const { conversation_id, output_text, citations } = completed.data.response;
  return {
    outcome: {
      type: "ok",
      status: s.status,
      value: { conversationId: conversation_id, text: output_text, citations: canonicalJson(citations) },
    },
  };
}

export function readListing(answer: Answer<HttpResult>): ReadAnswer<ListingValue> {
  return readPlain(answer, SpecMessagePage, "not a listing page", (p) => ({
    conversationId: p.conversation.id,
    page: p.page,
    pageSize: p.page_size,
    total: p.total,
    hasMore: p.has_more,
    items: p.items,
    createdAt: p.conversation.created_at,
    updatedAt: p.conversation.updated_at,
  }));
}

export function readDeletion(answer: Answer<HttpResult>): ReadAnswer<null> {
  if ("error" in answer) return { outcome: outcomeOfError(answer.error) };
  const http = answer.result;
  if (is2xx(http.status)) return { outcome: { type: "ok", status: http.status, value: null } };
  return { outcome: outcomeOfRefusal(http) };
}
