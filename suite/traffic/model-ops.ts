/**
 * An observed exchange as the model's operation (suite/model/operation.ts), its outcome read
 * as the interaction property reads its own (suite/model/answer-outcome.ts). Traffic is not a
 * planned history: an exchange that says nothing certain of the service's state is left out
 * (undefined) rather than guessed at:
 * - "not now" answers (429, 503) and a missing key's 401, which the spec allows anywhere;
 * - a create or stream without a string message (refused, as it must be: RESP-4);
 * - a create refused when nothing required the refusal: its body may have been invalid in a
 *   way traffic cannot tell (RESP-6, RESP-7), so the refusal shows nothing;
 * - a listing whose parameters are out of bounds (judged on its own: LIST-3, LIST-4, LIST-10).
 * An exchange cut before its answer came whole (the proxy stopped, the client hung up) is an
 * unknown outcome: a create or delete that may or may not have taken effect.
 */
import type { HttpResult, StreamResult } from "../http/types.ts";
import { readDeletion, readListing, readPlainCreate, readStreamCreate } from "../model/answer-outcome.ts";
import { MAX_PAGE_SIZE } from "../model/page.ts";
import { canonicalJson } from "../../schemas/canonical-json.ts";
import type { Caller, Op } from "../model/operation.ts";
import type { Classified } from "./classify.ts";
import { hasOptionalFields, openShapeOf } from "./open-shape.ts";

/**
 * HAR times have millisecond precision in every recorder (browsers, Playwright, mitmproxy, the
 * proxy): an exchange that overlaps a later one by less than that is taken as finished before
 * it, in their recorded order. So an end is compared as the earliest it may have been.
 */
const RECORDED_PRECISION_MS = 1;
/** Within one recorded millisecond, what was sent later starts later: a nanosecond a request. */
const TIE_MS = 1e-6;

/** The shortest the exchange may have taken, as recorded: never less than nothing. */
const shortestDuration = (c: Classified) => Math.max(0, c.exchange.durationMs - RECORDED_PRECISION_MS);

export const endOf = (c: Classified) => c.exchange.startedAt + shortestDuration(c);

/**
 * An exchange's start on the model's clock: milliseconds from `origin` (small numbers keep the
 * fractions a double would lose on epoch times), requests of one millisecond in the order sent.
 */
export const modelStartOf = (c: Classified, origin: number) =>
  c.exchange.startedAt - origin + c.exchange.sequence * TIE_MS;

/** "Not now" (429, 503), which the spec allows anywhere: such an answer shows nothing of the request's effect. */
export const saysNotNow = (status: number) => status === 429 || status === 503;

export const messageOf = (body: unknown): string | undefined => {
  const message = (body as { message?: unknown } | undefined)?.message;
  return typeof message === "string" ? message : undefined;
};

/** A page parameter as the model takes it: absent, or a whole number from 1 (page_size up to the maximum). */
function pageParameter(value: string | null, max: number): number | undefined | "out of bounds" {
  if (value === null) return undefined;
  if (!/^\d{1,9}$/.test(value)) return "out of bounds";
  const n = Number(value);
  return n >= 1 && n <= max ? n : "out of bounds";
}

export interface OperationInput {
  readonly c: Classified;
  /** Undefined when the answer did not come whole (`exchange.incomplete`), a stream's excepted: it is read as far as it went. */
  readonly result: HttpResult | StreamResult | undefined;
  /** The exchange's sequence: how the model's violations name it (#n), as the judge's lines do. */
  readonly index: number;
  /** The start of the first exchange judged, epoch ms: where the model's clock begins. */
  readonly origin: number;
  readonly who: Caller;
  /** Whether a refusal of a create is a verdict (its key was used before, or its conversation must refuse it); otherwise it shows nothing. */
  readonly refusalShows: boolean;
}

export function operationOf({ c, result, index, origin, who, refusalShows }: OperationInput): Op | undefined {
  const status = result?.status;
  if (status !== undefined && (saysNotNow(status) || status === 401)) return undefined;
  const start = modelStartOf(c, origin);
  const timed = { index, start, end: start + shortestDuration(c), who };
  const cut = { error: new Error(c.exchange.failure ?? "the answer did not come whole") };
  if (c.operation === "list" || c.operation === "delete") {
    if (c.conversationId === undefined) return undefined;
    if (c.operation === "delete")
      return {
        kind: "delete",
        ...timed,
        conversationId: c.conversationId,
        outcome: readDeletion(result === undefined ? cut : { result: result as HttpResult }).outcome,
      };
    // A listing that did not come whole shows nothing.
    if (result === undefined) return undefined;
    const http = result as HttpResult;
    const page = pageParameter(c.query.get("page"), Number.MAX_SAFE_INTEGER);
    const pageSize = pageParameter(c.query.get("page_size"), MAX_PAGE_SIZE);
    if (page === "out of bounds" || pageSize === "out of bounds") return undefined;
    const query = { ...(page === undefined ? {} : { page }), ...(pageSize === undefined ? {} : { pageSize }) };
    return {
      kind: "list",
      ...timed,
      conversationId: c.conversationId,
      query,
      outcome: readListing({ result: http }).outcome,
    };
  }
  const message = messageOf(c.body);
  if (message === undefined) return undefined;
  const openShape = openShapeOf(c.body);
  const outcome =
    result === undefined
      ? readPlainCreate(cut).outcome
      : c.operation === "stream"
        ? readStreamCreate({ result: result as StreamResult }).outcome
        : readPlainCreate({ result: result as HttpResult }).outcome;
  if (outcome.type === "refused" && !refusalShows) return undefined;
  return {
    kind: "create",
    ...timed,
    endpoint: c.operation === "stream" ? "stream" : "plain",
    key: c.idempotencyKey ?? null,
    message,
    conversationId: c.conversationId ?? null,
    payload: canonicalJson(c.body),
    ...(c.exchange.request.body === undefined ? {} : { raw: c.exchange.request.body }),
    ...(openShape === undefined ? {} : { openShape }),
    optionalFields: hasOptionalFields(c.body),
    outcome,
  };
}
