/**
 * The service, judged exchange by exchange against every requirement one exchange can show,
 * with the active checks' own judgements (suite/judgements). What needs more than one exchange
 * (replays, conflicts, races, deletes, listings against what was written, other agents) is the
 * executable model's (cross-request.ts), with one rule the model leaves alone, since it reads a
 * refusal as "nothing happened": a refused create holds no key (refused-keys.ts).
 */
import { EVENT, SpecMessagePage } from "../../schemas/index.ts";
import {
  expect4xx,
  expectErrorCode,
  expectNon2xx,
  expectSame,
  expectSomeErrorCode,
  expectStatus,
  expectThat,
  expectValidationRefusal,
  is2xx,
  isEventStream,
} from "../judgements/expect.ts";
import type { HttpResult, StreamResult } from "../http/types.ts";
import { ANSWER_RULES, type PlainAnswer } from "../judgements/answer-rules.ts";
import { judgeRefusedStream } from "../judgements/streams.ts";
import { STREAM_RULES } from "../judgements/stream-rules.ts";
import { canonicalJson } from "../model/operation.ts";
import { DEFAULT_PAGE, DEFAULT_PAGE_SIZE } from "../model/page.ts";
import type { Classified } from "./classify.ts";
import { endOf, messageOf, saysNotNow } from "./model-ops.ts";
import type { Recorder } from "./recorder.ts";
import type { RefusedKeys } from "./refused-keys.ts";

export interface Judged {
  readonly c: Classified;
  readonly line: string;
  readonly record: Recorder;
  readonly refusals: RefusedKeys;
  /** Multi-delta streams and whether each arrived in pieces (SSE-9, judged over the whole traffic). */
  readonly incremental: boolean[];
}

/** 502 and 504 are what a gateway or load balancer in front of the service answers when the service did not, with its own body. */
const fromGateway = (status: number) => status === 502 || status === 504;
/** 429 and 503 say "not now", which the spec allows anywhere; neither they nor a gateway's answers show anything of the request's judgement. */
const showsNothing = (status: number) => saysNotNow(status) || fromGateway(status);
const hasMessage = (body: unknown) => messageOf(body) !== undefined;
const isWholeNumber = (value: string | null) => value === null || (/^\d+$/.test(value) && Number(value) >= 1);

/** AUTH-1 and AUTH-2 for a request without a well-formed Bearer key; AUTH-2's header on any 401. */
function judgeAuth({ c, line, record }: Judged, res: HttpResult | StreamResult): boolean {
  if (c.token === undefined) {
    record.judge("AUTH-1", line, () => expectNon2xx(res, "a request without a Bearer key"));
    record.judge("AUTH-2", line, () => {
      expectStatus(res, 401, "a request without a Bearer key");
      expectThat(
        /^\s*Bearer\b/i.test(res.headers["www-authenticate"] ?? ""),
        `the 401 carries no WWW-Authenticate: Bearer (got ${JSON.stringify(res.headers["www-authenticate"] ?? null)})`,
        res,
      );
    });
    return false;
  }
  if (res.status === 401) {
    record.judge("AUTH-2", line, () =>
      expectThat(
        /^\s*Bearer\b/i.test(res.headers["www-authenticate"] ?? ""),
        `the 401 carries no WWW-Authenticate: Bearer (got ${JSON.stringify(res.headers["www-authenticate"] ?? null)})`,
        res,
      ),
    );
    return false;
  }
  return true;
}

/** ERR-1 on any error answer that is plain HTTP and came from the service (not a gateway's 502 or 504). */
function judgeErrorBody({ line, record }: Judged, http: HttpResult | undefined): void {
  if (http === undefined || http.status < 400 || fromGateway(http.status)) return;
  record.judge("ERR-1", line, () => expectSomeErrorCode(http, "an error answer"));
}

/**
 * What every answer shows first: auth, and the error body. False when nothing more is to judge
 * (a "not now", a gateway's answer, a request refused for its key).
 */
function judgedFurther(j: Judged, res: HttpResult | StreamResult, http: HttpResult | undefined): boolean {
  judgeErrorBody(j, http);
  return !showsNothing(res.status) && judgeAuth(j, res);
}

/** What a create or stream may judge about its body before the answer: RESP-4/5, IDEM-6. */
function judgeCreateRequest({ c, line, record }: Judged, res: HttpResult | StreamResult): void {
  if (!hasMessage(c.body)) {
    record.judge("RESP-4", line, () => expect4xx(res, "a create without a string message"));
    record.judge("RESP-5", line, () => expectValidationRefusal(res, "a create without a string message"));
    return;
  }
  if (c.idempotencyKey === undefined)
    record.judge("IDEM-6", line, () => expectValidationRefusal(res, "a create without an Idempotency-Key"));
}

/**
 * A create refused with a 4xx changes nothing, its key included: the key is free for another
 * payload, so a 409 for it means the refusal held on to it. RESP-4 when the refused body had no
 * string message, IDEM-3 (only an accepted payload holds a key) when it was refused for another
 * reason. The same body again may be refused again, and is not judged.
 */
function judgeKeyAfterRefusal({ c, line, record, refusals }: Judged, res: HttpResult | StreamResult): void {
  if (c.token === undefined || c.idempotencyKey === undefined) return;
  const payload = canonicalJson(c.body ?? c.exchange.request.body ?? null);
  const refusal = refusals.refusal(c.token, c.agent, c.idempotencyKey);
  if (refusal !== undefined && refusal.finishedAt <= c.exchange.startedAt && refusal.payload !== payload) {
    record.judge(refusal.requirement, line, () =>
      expectThat(
        res.status !== 409,
        `the key of a create refused with ${refusal.status} was answered 409 when used again with another payload: the refusal held on to it`,
        res,
      ),
    );
  }
  refusals.answered(c.token, c.agent, c.idempotencyKey, {
    status: res.status,
    finishedAt: endOf(c),
    payload,
    requirement: hasMessage(c.body) ? "IDEM-3" : "RESP-4",
  });
}

/**
 * The answer rules this 2xx answer can show, in the table's order, those that read a page only
 * once every rule that reads its body held; whether those held.
 */
function judgeAnswer({ line, record }: Judged, answer: PlainAnswer, context: string): boolean {
  let bodyHeld = true;
  for (const rule of ANSWER_RULES) {
    if (!rule.when(answer) || (rule.reads === "page" && !bodyHeld)) continue;
    let held = false;
    record.judge(rule.id, line, () => {
      rule.judge(answer, context);
      held = true;
    });
    if (rule.reads === "body") bodyHeld &&= held;
  }
  return bodyHeld;
}

export function judgeCreate(j: Judged, http: HttpResult): void {
  if (!judgedFurther(j, http, http)) return;
  judgeCreateRequest(j, http);
  judgeKeyAfterRefusal(j, http);
  if (is2xx(http.status) && hasMessage(j.c.body)) judgeAnswer(j, { to: "create", http }, "a create");
}

export function judgeStream(j: Judged, s: StreamResult): void {
  const { record, line } = j;
  if (!judgedFurther(j, s, s.http)) return;
  judgeCreateRequest(j, s);
  judgeKeyAfterRefusal(j, s);
  if (!is2xx(s.status) || !hasMessage(j.c.body)) {
    // A request the service had to refuse (no message) must be refused before any stream starts.
    record.judge("SSE-10", line, () => judgeRefusedStream(s, "a stream request that had to be refused"));
    return;
  }
  for (const rule of STREAM_RULES) {
    // A body the connection cut (a client that hung up, a network failure) shows no order or end.
    if (rule.when(s) && (rule.reads !== "end" || s.ended)) record.judge(rule.id, line, () => rule.judge(s, "a stream"));
  }
  if (!isEventStream(s.headers)) return;
  const completed = s.events.find((e) => e.event === EVENT.completed);
  const deltas = s.events.filter((e) => e.event === EVENT.delta);
  if (j.c.exchange.response?.chunks !== undefined && deltas.length >= 2 && s.terminal !== undefined) {
    j.incremental.push(new Set([...deltas, completed].filter((e) => e !== undefined).map((e) => e.chunk)).size > 1);
  }
}

export function judgeList(j: Judged, http: HttpResult): void {
  const { c, line, record } = j;
  if (c.conversationId === undefined || !judgedFurther(j, http, http)) return;
  const id = c.conversationId;
  if (http.status === 404)
    record.judge("LIST-9", line, () => expectErrorCode(http, "conversation_not_found", "a listing answered 404"));
  const page = c.query.get("page");
  const pageSize = c.query.get("page_size");
  const invalid = !isWholeNumber(page) || !isWholeNumber(pageSize);
  if (invalid)
    record.judge("LIST-10", line, () =>
      expectValidationRefusal(http, `a listing with page ${page} and page_size ${pageSize}`),
    );
  if (!is2xx(http.status)) {
    // Refused: never served as if valid.
    if (invalid)
      record.judge("LIST-4", line, () => expect4xx(http, `a listing with page ${page} and page_size ${pageSize}`));
    return;
  }
  if (!judgeAnswer(j, { to: "list", http, conversationId: id }, "a listing")) return;
  // Served as a page of the conversation asked for (LIST-1 held).
  const listed = SpecMessagePage.parse(http.json);
  if (invalid) {
    record.judge("LIST-4", line, () => {
      expectThat(
        listed.page >= 1 && listed.page_size >= 1,
        `page ${page} and page_size ${pageSize} were served as page ${listed.page} of size ${listed.page_size}`,
        http,
      );
    });
  }
  // Whatever parameter was left out has the spec's default, the other one given or not.
  if (page === null || pageSize === null) {
    record.judge("LIST-2", line, () => {
      if (page === null) expectSame(listed.page, DEFAULT_PAGE, "the echoed page without a page parameter", http);
      if (pageSize === null)
        expectSame(listed.page_size, DEFAULT_PAGE_SIZE, "the echoed page_size without a page_size parameter", http);
    });
  }
  if (listed.page > 1 && (listed.page - 1) * listed.page_size >= listed.total) {
    record.judge("LIST-6", line, () => {
      expectSame(listed.items.length, 0, "the items of a page past the last", http);
      expectSame(listed.has_more, false, "has_more of a page past the last", http);
    });
  }
}

export function judgeDelete(j: Judged, http: HttpResult): void {
  if (j.c.conversationId === undefined || !judgedFurther(j, http, http)) return;
  if (http.status === 404)
    j.record.judge("DEL-2", j.line, () => expectErrorCode(http, "conversation_not_found", "a delete answered 404"));
}
