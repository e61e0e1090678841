/**
 * The service, judged exchange by exchange against every requirement traffic alone can show.
 * Per-exchange shapes come from suite/judgements (the active checks' own); what needs more than
 * one exchange (replays, conflicts, scope, deletes) uses what TrafficState remembers, and only
 * compares a request with an earlier one that had finished before it started.
 */
import { canonicalJson } from "../../fake-server/idempotency/fingerprint.ts";
import { EVENT, SpecCompletedResponse } from "../../schemas/index.ts";
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
  is4xx,
  isEventStream,
} from "../judgements/expect.ts";
import type { Redactor } from "../http/redact.ts";
import type { HttpResult, StreamResult } from "../http/types.ts";
import { streamConversationId } from "../judgements/streams.ts";
import { judgeCreateAnswer, judgeListingAnswer, judgePageArithmetic } from "../judgements/answers.ts";
import {
  judgeCompletedPayload,
  judgeDeltaPayloads,
  judgeErrorEndsStream,
  judgeEventLines,
  judgeEventOrder,
  judgeEventStreamAnswer,
  judgeReassembly,
  judgeRefusedStream,
} from "../judgements/streams.ts";
import type { Classified } from "./classify.ts";
import type { Recorder } from "./recorder.ts";
import { httpResultOf, streamResultOf } from "./results.ts";
import type { KnownConversation, TrafficState } from "./state.ts";

const MAX_PAGE_SIZE = 100;
const DEFAULT_PAGE_SIZE = 50;

export interface Judged {
  readonly c: Classified;
  readonly line: string;
  readonly record: Recorder;
  readonly state: TrafficState;
  /** Multi-delta streams and whether each arrived in pieces (SSE-9, judged over the whole traffic). */
  readonly incremental: boolean[];
}

/**
 * HAR times have millisecond precision in every recorder (browsers, Playwright, mitmproxy, the
 * proxy): an exchange that overlaps a later one by less than that is taken as finished before
 * it, in their recorded order. So an end is compared as the earliest it may have been.
 */
const RECORDED_PRECISION_MS = 1;
const endOf = (c: Classified) => c.exchange.startedAt + Math.max(0, c.exchange.durationMs - RECORDED_PRECISION_MS);
/** 502 and 504 are what a gateway or load balancer in front of the service answers when the service did not, with its own body. */
const fromGateway = (status: number) => status === 502 || status === 504;
/** 429 and 503 say "not now", which the spec allows anywhere; neither they nor a gateway's answers show anything of the request's judgement. */
const showsNothing = (status: number) => status === 429 || status === 503 || fromGateway(status);
const hasMessage = (body: unknown) => typeof (body as { message?: unknown } | undefined)?.message === "string";
const isWholeNumber = (value: string | null) => value === null || /^\d+$/.test(value) && Number(value) >= 1;

/** AUTH-1 and AUTH-2 for a request without a well-formed Bearer key; AUTH-2's header on any 401. */
function judgeAuth({ c, line, record }: Judged, res: HttpResult | StreamResult): boolean {
  if (c.token === undefined) {
    record.judge("AUTH-1", line, () => expectNon2xx(res, "a request without a Bearer key"));
    record.judge("AUTH-2", line, () => {
      expectStatus(res, 401, "a request without a Bearer key");
      expectThat(/^\s*Bearer\b/i.test(res.headers["www-authenticate"] ?? ""), `the 401 carries no WWW-Authenticate: Bearer (got ${JSON.stringify(res.headers["www-authenticate"] ?? null)})`, res);
    });
    return false;
  }
  if (res.status === 401) {
    record.judge("AUTH-2", line, () =>
      expectThat(/^\s*Bearer\b/i.test(res.headers["www-authenticate"] ?? ""), `the 401 carries no WWW-Authenticate: Bearer (got ${JSON.stringify(res.headers["www-authenticate"] ?? null)})`, res));
    return false;
  }
  return true;
}

/** ERR-1 on any error answer that is plain HTTP and came from the service (not a gateway's 502 or 504). */
function judgeErrorBody({ line, record }: Judged, http: HttpResult | undefined): void {
  if (http === undefined || http.status < 400 || fromGateway(http.status)) return;
  record.judge("ERR-1", line, () => expectSomeErrorCode(http, "an error answer"));
}

/** What a create or stream may judge about its body before the answer: RESP-4/5, IDEM-6, continuing (RESP-2/8, DEL-3, SCOPE-4). */
function judgeCreateRequest(j: Judged, res: HttpResult | StreamResult, answeredId: string | undefined): void {
  const { c, line, record, state } = j;
  if (!hasMessage(c.body)) {
    record.judge("RESP-4", line, () => expect4xx(res, "a create without a string message"));
    record.judge("RESP-5", line, () => expectValidationRefusal(res, "a create without a string message"));
    return;
  }
  if (c.idempotencyKey === undefined) {
    record.judge("IDEM-6", line, () => expectValidationRefusal(res, "a create without an Idempotency-Key"));
    return;
  }
  const continued = state.conversation(c.conversationId);
  if (c.conversationId === undefined || continued === undefined) return;
  const started = c.exchange.startedAt;
  if (continued.agent !== c.agent) {
    record.judge("SCOPE-4", line, () =>
      expectThat(!is2xx(res.status) || answeredId === undefined || answeredId.toLowerCase() !== c.conversationId,
        `continuing conversation ${c.conversationId} of agent ${continued.agent} through agent ${c.agent} was answered as a continuation of it`, res));
  } else if (continued.token === c.token && state.deletePhase(continued, started) !== "none") {
    judgeAfterDelete(j, continued, "DEL-3", () => expectStatus(res, 404, `continuing conversation ${c.conversationId} after it was deleted`), res.status === 404);
  } else if (continued.token === c.token && continued.deletedAt === undefined && is2xx(res.status) && answeredId !== undefined) {
    record.judge("RESP-2", line, () =>
      expectThat(answeredId.toLowerCase() === c.conversationId, `continuing conversation ${c.conversationId} answered conversation ${answeredId}`, res));
  }
}

/**
 * A create refused with a 4xx changes nothing, its key included: the key is free for another
 * payload, so a 409 for it means the refusal held on to the key. RESP-4 when the refused body had
 * no string message, IDEM-3 (only an accepted payload holds a key) when it was refused for
 * another reason. The same body again may be refused again, and is not judged. A refusal is
 * remembered until the key is accepted.
 */
function judgeReuseAfterRefusal({ c, line, record, state }: Judged, res: HttpResult | StreamResult, payload: string): void {
  if (c.token === undefined || c.idempotencyKey === undefined) return;
  const accepted = state.keyOutcome(c.token, c.agent, c.idempotencyKey);
  const refusal = accepted === undefined ? state.refusal(c.token, c.agent, c.idempotencyKey) : undefined;
  if (refusal !== undefined && refusal.finishedAt <= c.exchange.startedAt && refusal.payload !== payload) {
    record.judge(refusal.requirement, line, () =>
      expectThat(res.status !== 409, `the key of a create refused with ${refusal.status} was answered 409 when used again with another payload: the refusal held on to it`, res));
  }
  if (accepted === undefined && is4xx(res.status) && res.status !== 409) {
    state.rememberRefusal(c.token, c.agent, c.idempotencyKey, { finishedAt: endOf(c), payload, status: res.status, requirement: hasMessage(c.body) ? "IDEM-3" : "RESP-4" });
  }
}

/** IDEM-1/3 (create) and IDEM-4 (stream): a key seen accepted before, reused after that finished. */
function judgeKeyReuse(j: Judged, res: HttpResult | StreamResult, result: { conversation_id: string; text: string; citations: unknown } | undefined): void {
  const { c, line, record, state } = j;
  const operation = c.operation === "stream" ? "stream" : "create";
  if (c.token === undefined || c.idempotencyKey === undefined) return;
  const payload = canonicalJson(c.body ?? c.exchange.request.body ?? null);
  judgeReuseAfterRefusal(j, res, payload);
  if (!hasMessage(c.body)) return;
  const earlier = state.keyOutcome(c.token, c.agent, c.idempotencyKey);
  if (earlier !== undefined && earlier.operation === operation && earlier.finishedAt <= c.exchange.startedAt) {
    const replay = operation === "create" ? "IDEM-1" : "IDEM-4";
    const conflict = operation === "create" ? "IDEM-3" : "IDEM-4";
    if (earlier.payload === payload) {
      // The same payload written differently (key order, whitespace) must count as the same.
      if (earlier.raw !== c.exchange.request.body) record.judge("IDEM-8", line, () => expectThat(res.status !== 409 && res.status !== 422, `the same payload with other key order or whitespace was answered ${res.status}`, res));
      record.judge(replay, line, () => {
        expectThat(is2xx(res.status) && result !== undefined, `a replay of an accepted key with the same payload was answered ${res.status} without the earlier result`, res);
        expectSame({ conversation_id: result.conversation_id.toLowerCase(), text: result.text, citations: result.citations },
          { ...earlier.result, conversation_id: earlier.result.conversation_id.toLowerCase() }, "the replay, compared with the first answer", res);
      });
    } else {
      record.judge(conflict, line, () => expectStatus(res, 409, "the same Idempotency-Key with a different payload"));
    }
    return;
  }
  if (earlier === undefined && is2xx(res.status) && result !== undefined) {
    state.rememberKey(c.token, c.agent, c.idempotencyKey, { operation, payload, raw: c.exchange.request.body, finishedAt: endOf(c), result });
  }
}

/**
 * A judgement of a request about a conversation its owner deleted (DEL-1, DEL-3); `showsDeleted`
 * when its answer treats the conversation as gone, which is judged at once. A service may apply
 * a delete a moment late (its read model lags): within --settle-ms of the delete, a request that
 * still sees the conversation is not judged when the service was seen lagging, and otherwise
 * held, then taken back if a later request sees the conversation gone; what is still held when
 * the traffic ends is reported. After the window it is judged at once.
 */
function judgeAfterDelete(j: Judged, known: KnownConversation, requirement: string, judgement: () => void, showsDeleted: boolean): void {
  const { c, line, record, state } = j;
  const phase = state.deletePhase(known, c.exchange.startedAt);
  if (showsDeleted) state.deleteShown(known);
  if (phase === "settled" || showsDeleted) return record.judge(requirement, line, judgement);
  if (phase !== "settling" || state.listingLagSeen) return;
  const held = record.hold(requirement, line, judgement);
  if (held !== undefined) known.held.push(held);
}

/** False when an earlier accepted request had this key: the answer is then a replay, which stores nothing. */
function isFirstAnswer({ c, state }: Judged): boolean {
  return c.token === undefined || c.idempotencyKey === undefined || state.keyOutcome(c.token, c.agent, c.idempotencyKey) === undefined;
}

/**
 * The conversation an accepted create or stream answered with. `stored`: the answer was whole
 * (a result) and a first answer, so its exchange is in the conversation.
 */
function rememberCreated(j: Judged, conversationId: string | undefined, firstAnswer: boolean, stored: boolean): void {
  const { c, line, record, state } = j;
  if (conversationId === undefined) return;
  // A replay gives the earlier id back; only a first answer must name a new conversation.
  if (c.conversationId === undefined && c.token !== undefined && c.idempotencyKey !== undefined && firstAnswer) {
    const isNew = state.conversation(conversationId) === undefined;
    record.judge("RESP-3", line, () => expectThat(isNew, `a create without conversation_id answered conversation ${conversationId}, which already existed`));
  }
  const known = state.rememberConversation(conversationId, { agent: c.agent, token: c.token });
  if (stored && firstAnswer && known.agent === c.agent) state.rememberStored(known, { startedAt: c.exchange.startedAt, finishedAt: endOf(c), stream: c.operation === "stream" });
}

export function judgeCreate(j: Judged, redactor: Redactor): void {
  const http = httpResultOf(j.c.exchange, redactor);
  if (http === undefined) return;
  if (showsNothing(http.status) || !judgeAuth(j, http)) return judgeErrorBody(j, http);
  const answered = is2xx(http.status) ? (http.json as { conversation_id?: unknown } | undefined)?.conversation_id : undefined;
  const answeredId = typeof answered === "string" ? answered : undefined;
  const firstAnswer = isFirstAnswer(j);
  judgeCreateRequest(j, http, answeredId);
  judgeErrorBody(j, http);
  if (!is2xx(http.status) || !hasMessage(j.c.body)) {
    judgeKeyReuse(j, http, undefined);
    return;
  }
  let result;
  j.record.judge("RESP-1", j.line, () => {
    result = judgeCreateAnswer(http, "a create");
  });
  const parsed = result as { conversation_id: string; response: string; citations: unknown } | undefined;
  judgeKeyReuse(j, http, parsed === undefined ? undefined : { conversation_id: parsed.conversation_id, text: parsed.response, citations: parsed.citations });
  rememberCreated(j, parsed?.conversation_id, firstAnswer, true);
}

export function judgeStream(j: Judged, redactor: Redactor): void {
  const s = streamResultOf(j.c.exchange, redactor);
  if (s === undefined) return;
  const { record, line } = j;
  if (showsNothing(s.status) || !judgeAuth(j, s)) return judgeErrorBody(j, s.http);
  const completed = s.events.find((e) => e.event === EVENT.completed);
  const parsed = SpecCompletedResponse.safeParse((completed?.json as { response?: unknown } | undefined)?.response);
  const firstAnswer = isFirstAnswer(j);
  judgeCreateRequest(j, s, streamConversationId(s));
  if (!is2xx(s.status) || !hasMessage(j.c.body)) {
    // A request the service had to refuse (no message) must be refused before any stream starts.
    record.judge("SSE-10", line, () => judgeRefusedStream(s, "a stream request that had to be refused"));
    judgeErrorBody(j, s.http);
    judgeKeyReuse(j, s, undefined);
    return;
  }
  record.judge("SSE-1", line, () => judgeEventStreamAnswer(s, "a stream"));
  if (!isEventStream(s.headers)) return;
  record.judge("SSE-2", line, () => judgeEventLines(s));
  record.judge("SSE-4", line, () => judgeDeltaPayloads(s));
  // A body the connection cut (a client that hung up, a network failure) shows no order or end.
  if (s.ended) record.judge("SSE-3", line, () => judgeEventOrder(s));
  if (completed !== undefined) {
    record.judge("SSE-5", line, () => judgeCompletedPayload(s, "a stream"));
    if (s.ended) record.judge("SSE-7", line, () => judgeReassembly(s, "a stream"));
  }
  if (s.events.some((e) => e.event === EVENT.error) && s.ended) record.judge("SSE-6", line, () => judgeErrorEndsStream(s));
  const deltas = s.events.filter((e) => e.event === EVENT.delta);
  if (j.c.exchange.response?.chunks !== undefined && deltas.length >= 2 && s.terminal !== undefined) {
    j.incremental.push(new Set([...deltas, completed].filter((e) => e !== undefined).map((e) => e.chunk)).size > 1);
  }
  const result = parsed.success ? { conversation_id: parsed.data.conversation_id, text: parsed.data.output_text, citations: parsed.data.citations } : undefined;
  judgeKeyReuse(j, s, result);
  rememberCreated(j, result?.conversation_id ?? streamConversationId(s), firstAnswer, result !== undefined);
}

/**
 * RESP-2 and SSE-8 from listings: an exchange stored in a conversation adds at least one message,
 * so a listing read --settle-ms after exchanges that all began once an earlier listing was
 * answered counts at least that many more messages. Judged only when those exchanges are all
 * plain (RESP-2) or all streamed (SSE-8), so that a missing one is named by its own requirement;
 * messages the proxy did not see (another client's) can only hide a missing one, never invent it.
 */
function judgeGrowth({ c, line, record, state }: Judged, known: KnownConversation, total: number, http: HttpResult): void {
  for (const since of [...known.listings].reverse()) {
    const settled = state.settledSince(known, since, c.exchange.startedAt);
    if (settled === undefined || settled.length === 0) continue;
    const streams = settled.filter((e) => e.stream).length;
    if (streams !== 0 && streams !== settled.length) continue;
    const kind = streams === 0 ? "plain" : "streamed";
    record.judge(streams === 0 ? "RESP-2" : "SSE-8", line, () =>
      expectThat(total - since.total >= settled.length,
        `${settled.length} ${kind} exchange(s) answered at least ${state.settleMs} ms (--settle-ms) before this listing, all begun after a listing that counted ` +
        `${since.total} message(s), yet it counts ${total}: not every one of them was stored in the conversation`, http));
    return;
  }
}

export function judgeList(j: Judged, redactor: Redactor): void {
  const http = httpResultOf(j.c.exchange, redactor);
  const { c, line, record, state } = j;
  if (http === undefined || c.conversationId === undefined) return;
  if (showsNothing(http.status) || !judgeAuth(j, http)) return judgeErrorBody(j, http);
  judgeErrorBody(j, http);
  const id = c.conversationId;
  const known = state.conversation(id);
  if (known !== undefined && known.agent !== c.agent) {
    record.judge("SCOPE-1", line, () => expectNon2xx(http, `listing conversation ${id} of agent ${known.agent} through agent ${c.agent}`));
    return;
  }
  const mine = known !== undefined && known.token === c.token ? known : undefined;
  if (mine !== undefined && state.deletePhase(mine, c.exchange.startedAt) !== "none") {
    judgeAfterDelete(j, mine, "DEL-1", () => expect4xx(http, `listing conversation ${id} after it was deleted`), is4xx(http.status));
    return;
  }
  const mustShow = mine === undefined || mine.deletedAt !== undefined ? 0 : state.storedBefore(mine, c.exchange.startedAt);
  if (http.status === 404 && mustShow > 0) state.listingLagSeen = true;
  if (http.status === 404) record.judge("LIST-9", line, () => expectErrorCode(http, "conversation_not_found", "a listing answered 404"));
  const page = c.query.get("page");
  const pageSize = c.query.get("page_size");
  const invalid = !isWholeNumber(page) || !isWholeNumber(pageSize);
  if (invalid) record.judge("LIST-10", line, () => expectValidationRefusal(http, `a listing with page ${page} and page_size ${pageSize}`));
  if (!is2xx(http.status)) {
    // Refused: never served as if valid.
    if (invalid) record.judge("LIST-4", line, () => expect4xx(http, `a listing with page ${page} and page_size ${pageSize}`));
    return;
  }
  let served: ReturnType<typeof judgeListingAnswer> | undefined;
  record.judge("LIST-1", line, () => {
    served = judgeListingAnswer(http, id, "a listing");
  });
  if (served === undefined) return;
  const listed = served;
  if (listed.total < mustShow) state.listingLagSeen = true;
  if (mine !== undefined && mine.deletedAt === undefined && mine.agent === c.agent) {
    judgeGrowth(j, mine, listed.total, http);
    state.rememberListing(mine, { startedAt: c.exchange.startedAt, finishedAt: endOf(c), total: listed.total });
  }
  record.judge("LIST-5", line, () => judgePageArithmetic(listed, http, "a listing"));
  record.judge("LIST-3", line, () => {
    expectThat(listed.page_size <= MAX_PAGE_SIZE, `page_size ${listed.page_size} was echoed, above ${MAX_PAGE_SIZE}`, http);
    expectThat(listed.items.length <= MAX_PAGE_SIZE, `a page held ${listed.items.length} items`, http);
  });
  if (invalid) {
    record.judge("LIST-4", line, () => {
      expectThat(listed.page >= 1 && listed.page_size >= 1, `page ${page} and page_size ${pageSize} were served as page ${listed.page} of size ${listed.page_size}`, http);
    });
  }
  if (page === null && pageSize === null) {
    record.judge("LIST-2", line, () => {
      expectSame(listed.page, 1, "the echoed page without parameters", http);
      expectSame(listed.page_size, DEFAULT_PAGE_SIZE, "the echoed page_size without parameters", http);
    });
  }
  if (listed.page > 1 && (listed.page - 1) * listed.page_size >= listed.total) {
    record.judge("LIST-6", line, () => {
      expectSame(listed.items.length, 0, "the items of a page past the last", http);
      expectSame(listed.has_more, false, "has_more of a page past the last", http);
    });
  }
}

export function judgeDelete(j: Judged, redactor: Redactor): void {
  const http = httpResultOf(j.c.exchange, redactor);
  const { c, line, record, state } = j;
  if (http === undefined || c.conversationId === undefined) return;
  if (showsNothing(http.status) || !judgeAuth(j, http)) return judgeErrorBody(j, http);
  judgeErrorBody(j, http);
  const id = c.conversationId;
  const known = state.conversation(id);
  if (known !== undefined && known.agent !== c.agent) {
    record.judge("SCOPE-2", line, () => {
      expectStatus(http, 404, `deleting conversation ${id} of agent ${known.agent} through agent ${c.agent}`);
      expectErrorCode(http, "conversation_not_found");
    });
    return;
  }
  if (known !== undefined && known.token === c.token && state.deletePhase(known, c.exchange.startedAt) !== "none") {
    judgeAfterDelete(j, known, "DEL-1", () => {
      expectStatus(http, 404, `deleting conversation ${id} a second time`);
      expectErrorCode(http, "conversation_not_found");
    }, http.status === 404);
    return;
  }
  if (http.status === 404) record.judge("DEL-2", line, () => expectErrorCode(http, "conversation_not_found", "a delete answered 404"));
  // The first delete that was answered counts: one inside a lagging service's window changes nothing.
  if (is2xx(http.status) && known !== undefined && known.token === c.token && known.deletedAt === undefined) known.deletedAt = endOf(c);
}
