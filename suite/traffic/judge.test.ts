/**
 * The traffic judge on exchanges written by hand: what it must not blame the service for
 * (requests that overlapped, "try later" answers, a stream the client hung up on), what it
 * must catch, and that nothing it could not observe is ever `pass`.
 */
import { describe, expect, test } from "vitest";
import { REQUIREMENTS } from "../../requirements/catalog.ts";
import { Redactor } from "../http/redact.ts";
import type { ObservedExchange } from "./exchange.ts";
import { createTrafficJudge, trafficExitCode } from "./judge.ts";

const ID = "0b6c2a55-4a4b-4c8e-9a52-6f1d1f3c1a01";
const BASE = "http://service.example/api/v1/agents/agent-a";
let sequence = 0;

function exchange(
  method: string,
  path: string,
  init: {
    body?: unknown;
    headers?: Record<string, string>;
    status: number;
    responseHeaders?: Record<string, string>;
    response?: unknown;
    at?: number;
    ms?: number;
    complete?: boolean;
  },
): ObservedExchange {
  const text =
    typeof init.response === "string"
      ? init.response
      : init.response === undefined
        ? ""
        : JSON.stringify(init.response);
  return {
    sequence: sequence++,
    startedAt: init.at ?? 1_000 * sequence,
    request: {
      method,
      url: `${BASE}${path}`,
      headers: { authorization: "Bearer sk-live-1", "content-type": "application/json", ...init.headers },
      body: init.body === undefined ? undefined : typeof init.body === "string" ? init.body : JSON.stringify(init.body),
    },
    response: {
      status: init.status,
      headers: { "content-type": "application/json", ...init.responseHeaders },
      body: text,
      complete: init.complete ?? true,
      chunks: undefined,
    },
    failure: undefined,
    durationMs: init.ms ?? 10,
  };
}

const answer = (response = "Hello.") => ({ conversation_id: ID, response, citations: [] });
const create = (key: string, body: unknown, status: number, response: unknown, at?: number, ms?: number) =>
  exchange("POST", "/responses", {
    body,
    headers: { "idempotency-key": key },
    status,
    response,
    ...(at === undefined ? {} : { at }),
    ...(ms === undefined ? {} : { ms }),
  });

function judged(...exchanges: ObservedExchange[]) {
  const judge = createTrafficJudge({ target: "test", redactor: new Redactor(["sk-live-1"]), settleMs: 3_000 });
  // What the model judges across requests may come only when the traffic is over.
  const violations = [...exchanges.flatMap((e) => judge.observe(e)), ...judge.finish()];
  const report = judge.report();
  const status = (id: string) => report.requirements.find((r) => r.id === id)?.status;
  return { violations, report, status, judge };
}

describe("what the judge must not blame the service for", () => {
  test("a second request with the same key that started before the first finished is not a replay to judge", () => {
    const { status } = judged(
      create("k", { message: "hi" }, 200, answer(), 1_000, 500),
      create("k", { message: "hi" }, 409, { error: { code: "idempotency_key_in_use" } }, 1_100, 10),
    );
    expect(status("IDEM-1")).toBe("not_observed");
  });

  test("429 and 503 answers are 'not now', never a verdict on replays, validation or listings", () => {
    const busy = { error: { code: "rate_limited" } };
    const { status, violations } = judged(
      create("k", { message: "hi" }, 200, answer()),
      create("k", { message: "hi" }, 429, busy),
      create("n", { message: "no key?" }, 503, busy),
      exchange("GET", `/conversations/${ID}/messages?page=0`, { status: 429, response: busy }),
    );
    expect(violations).toEqual([]);
    expect([status("IDEM-1"), status("LIST-10"), status("ERR-1")]).toEqual(["not_observed", "not_observed", "pass"]);
  });

  test("502 and 504 are a gateway's answers: no verdict on auth, validation or error bodies", () => {
    const html = "<html><body>Bad Gateway</body></html>";
    const { violations, status } = judged(
      exchange("POST", "/responses", {
        headers: { authorization: "", "idempotency-key": "g" },
        body: { message: "hi" },
        status: 502,
        responseHeaders: { "content-type": "text/html" },
        response: html,
      }),
      create("v", { metadata: {} }, 504, html),
      exchange("GET", `/conversations/${ID}/messages?page=0`, { status: 502, response: html }),
    );
    expect(violations.filter((v) => !v.requirement.startsWith("CLIENT-"))).toEqual([]);
    expect([status("AUTH-2"), status("RESP-4"), status("LIST-10"), status("ERR-1")]).toEqual([
      "not_observed",
      "not_observed",
      "not_observed",
      "not_observed",
    ]);
  });

  test("an exchange whose body was not recorded or not readable is not judged, only counted", () => {
    const unknown = (e: ObservedExchange, side: "request" | "response"): ObservedExchange =>
      side === "request"
        ? { ...e, request: { ...e.request, body: undefined } }
        : { ...e, response: e.response && { ...e.response, body: undefined } };
    const { violations, status, judge } = judged(
      // Judged on what it would seem to be, each would be a violation: an empty 200 create, a create "without a message".
      unknown(create("k", { message: "hi" }, 200, ""), "response"),
      unknown(create("j", { message: "hi" }, 200, answer()), "request"),
    );
    expect(violations).toEqual([]);
    expect([status("RESP-1"), status("RESP-4"), status("CLIENT-2")]).toEqual([
      "not_observed",
      "not_observed",
      "not_observed",
    ]);
    expect([judge.judged, judge.unread]).toEqual([0, 2]);
  });

  test("a delete may show late: within --settle-ms a listing that still shows it is held, taken back when a later one sees it gone, failed when one late in the window still showed it, and never a pass", () => {
    const page = (total: number) => ({
      conversation: { id: ID, created_at: "2026-01-01T00:00:00Z", updated_at: "2026-01-01T00:00:00Z" },
      items: [],
      page: 2,
      page_size: 50,
      total,
      has_more: false,
    });
    const listing = (status: number, at: number, response: unknown) =>
      exchange("GET", `/conversations/${ID}/messages?page=2`, { status, response, at });
    const remove = (at: number) => exchange("DELETE", `/conversations/${ID}`, { status: 204, at, ms: 10 });
    const lagging = judged(
      create("k", { message: "hi" }, 200, answer(), 1_000, 10),
      // Read after the create finished, and it is not there yet: this service's listings lag.
      listing(404, 1_100, { error: { code: "conversation_not_found" } }),
      listing(200, 1_500, page(2)),
      remove(2_000),
      listing(200, 2_100, page(2)),
      remove(2_200),
    );
    // Not listable at first, then listed (lag, taken back); still listed right after the delete, then deleted again: no
    // read can show the first delete applied any more, and none came late in the window: undecided, never a pass.
    expect(lagging.violations).toEqual([]);
    expect(lagging.status("RESP-2")).toBe("pass");
    expect(lagging.status("DEL-1")).toBe("inconclusive");
    expect(lagging.report.traffic.undecided[0]?.reason).toMatch(
      /^no read came in the second half of the 3000 ms --settle-ms window before the conversation's delete, DELETE \S+ → 204 \(#\d+\)/,
    );
    const stillThere = judged(
      create("k", { message: "hi" }, 200, answer(), 1_000, 10),
      listing(200, 1_100, page(2)),
      remove(2_000),
      listing(200, 5_100, page(2)),
    );
    expect(stillThere.violations.map((v) => v.requirement)).toEqual(["DEL-1"]);
    // Still listed right after the delete and late in the window, and never seen gone: at the end of the traffic, the late
    // read decides, as the suite's settling decides on its last read.
    const neverGone = judged(
      create("k", { message: "hi" }, 200, answer(), 1_000, 10),
      listing(200, 1_100, page(2)),
      remove(2_000),
      listing(200, 2_100, page(2)),
      listing(200, 3_600, page(2)),
    );
    expect(neverGone.violations.map((v) => v.requirement)).toEqual(["DEL-1"]);
    expect(neverGone.status("DEL-1")).toBe("fail");
    expect(neverGone.report.requirements.find((r) => r.id === "DEL-1")?.reason).toMatch(
      /listed conversation .* deleted by #\d+.*no read showed the delete applied: the last read without it began \d+ ms after the write/,
    );
    // Only right after the delete: undecided, with the listing that held it, never a pass.
    const endedSoon = judged(
      create("k", { message: "hi" }, 200, answer(), 1_000, 10),
      listing(200, 1_100, page(2)),
      remove(2_000),
      listing(200, 2_100, page(2)),
    );
    expect(endedSoon.violations).toEqual([]);
    expect(endedSoon.status("DEL-1")).toBe("inconclusive");
    expect(endedSoon.report.requirements.find((r) => r.id === "DEL-1")?.reason).toMatch(
      /^undecided: 1 verdict.*GET \/api\/v1\/agents\/agent-a\/conversations\/.*\(#\d+\).*no read came in the second half of the 3000 ms --settle-ms window before the end of the traffic \(the last began \d+ ms after the write\)/,
    );
    expect(endedSoon.report.result).toBe("incomplete");
    expect(trafficExitCode(endedSoon.report)).toBe(3);
    // Still listed right after the delete, gone a moment later: the service's lag, not a failed delete.
    const lateButGone = judged(
      create("k", { message: "hi" }, 200, answer(), 1_000, 10),
      listing(200, 1_100, page(2)),
      remove(2_000),
      listing(200, 2_100, page(2)),
      listing(404, 2_400, { error: { code: "conversation_not_found" } }),
    );
    expect(lateButGone.violations).toEqual([]);
    expect(lateButGone.status("DEL-1")).toBe("pass");
  });

  test("a continuation missing from a listing read --settle-ms later breaks RESP-2; sooner, or when it overlapped the earlier listing, it shows nothing", () => {
    const page = (total: number) => ({
      conversation: { id: ID, created_at: "2026-01-01T00:00:00Z", updated_at: "2026-01-01T00:00:00Z" },
      items: [],
      page: 9,
      page_size: 1,
      total,
      has_more: false,
    });
    const listing = (at: number, total: number) =>
      exchange("GET", `/conversations/${ID}/messages?page=9&page_size=1`, { status: 200, response: page(total), at });
    const first = create("k", { message: "hi" }, 200, answer(), 500, 10);
    const continued = (at: number) => create(`c${at}`, { message: "more", conversation_id: ID }, 200, answer(), at, 10);
    const missing = judged(first, listing(1_000, 2), continued(1_100), listing(1_200, 2), listing(4_200, 2));
    expect(missing.violations.map((v) => v.requirement)).toEqual(["RESP-2"]);
    expect(missing.violations[0]?.exchange).toContain("#");
    const stored = judged(first, listing(1_000, 2), continued(1_100), listing(4_200, 4));
    expect(stored.violations).toEqual([]);
    const overlapping = judged(first, continued(995), listing(1_000, 2), listing(4_200, 2));
    expect(overlapping.violations).toEqual([]);
  });

  test("finish() hands over what was held, once, for the console; the report counts it", () => {
    const judge = createTrafficJudge({ target: "test", redactor: new Redactor([]) });
    const page = {
      conversation: { id: ID, created_at: "2026-01-01T00:00:00Z", updated_at: "2026-01-01T00:00:00Z" },
      items: [],
      page: 2,
      page_size: 50,
      total: 2,
      has_more: false,
    };
    judge.observe(create("k", { message: "hi" }, 200, answer(), 1_000, 10));
    judge.observe(exchange("DELETE", `/conversations/${ID}`, { status: 204, at: 2_000 }));
    expect(
      judge.observe(
        exchange("GET", `/conversations/${ID}/messages?page=2`, { status: 200, response: page, at: 3_600 }),
      ),
    ).toEqual([]);
    expect(judge.finish().map((v) => v.requirement)).toEqual(["DEL-1"]);
    expect(judge.finish()).toEqual([]);
    expect(judge.report().requirements.find((r) => r.id === "DEL-1")?.status).toBe("fail");
  });

  test("a stream the client hung up on shows no order and no end", () => {
    const cut = exchange("POST", "/responses/stream", {
      body: { message: "hi" },
      headers: { "idempotency-key": "s", accept: "text/event-stream" },
      status: 200,
      responseHeaders: { "content-type": "text/event-stream" },
      response: `event: response.created\ndata: {"type":"response.created","conversation_id":"${ID}"}\n\n`,
      complete: false,
    });
    const { violations, status } = judged(cut);
    expect(violations).toEqual([]);
    expect([status("SSE-1"), status("SSE-3"), status("SSE-7")]).toEqual(["pass", "not_observed", "not_observed"]);
  });
});

describe("what the judge must catch", () => {
  test("a replay with another answer breaks IDEM-1; a conflict answered 200 breaks IDEM-3", () => {
    const { violations } = judged(
      create("k", { message: "hi" }, 200, answer("first")),
      create("k", { message: "hi" }, 200, answer("second")),
      create("k", { message: "other" }, 200, answer("first")),
    );
    expect(violations.map((v) => v.requirement)).toEqual(expect.arrayContaining(["IDEM-1", "IDEM-3"]));
  });

  test("a first answer naming a conversation an earlier create made breaks RESP-3; a replay naming it again does not", () => {
    const replay = judged(create("k", { message: "hi" }, 200, answer()), create("k", { message: "hi" }, 200, answer()));
    expect(replay.status("RESP-3")).toBe("pass");
    const reused = judged(
      create("k", { message: "hi" }, 200, answer()),
      create("j", { message: "another" }, 200, answer()),
    );
    expect(reused.violations.map((v) => v.requirement)).toEqual(["RESP-3"]);
  });

  test("a stream that ends without a terminal event breaks SSE-3, and the violation names the requirement's sentence", () => {
    const { violations } = judged(
      exchange("POST", "/responses/stream", {
        body: { message: "hi" },
        headers: { "idempotency-key": "s", accept: "text/event-stream" },
        status: 200,
        responseHeaders: { "content-type": "text/event-stream" },
        response: `event: response.created\ndata: {"type":"response.created","conversation_id":"${ID}"}\n\n`,
      }),
    );
    const sse3 = violations.find((v) => v.requirement === "SSE-3");
    expect(sse3?.sentence).toBe(REQUIREMENTS.find((r) => r.id === "SSE-3")?.summary);
    expect(sse3?.exchange).toMatch(/^POST \/api\/v1\/agents\/agent-a\/responses\/stream → 200 \(#\d+\)$/);
  });

  test("a listing whose items disagree with total breaks LIST-5; the key never appears in a violation", () => {
    const page = {
      conversation: { id: ID, created_at: "2026-01-01T00:00:00Z", updated_at: "2026-01-01T00:00:00Z" },
      items: [],
      page: 1,
      page_size: 50,
      total: 2,
      has_more: false,
    };
    const { violations, report } = judged(
      exchange("GET", `/conversations/${ID}/messages`, { status: 200, response: page }),
    );
    expect(violations.map((v) => v.requirement)).toContain("LIST-5");
    expect(JSON.stringify(report)).not.toContain("sk-live-1");
  });

  test("a listing of another conversation breaks LIST-1, and its page is not judged further; a page above the cap breaks LIST-3", () => {
    const conversation = (id: string) => ({
      id,
      created_at: "2026-01-01T00:00:00Z",
      updated_at: "2026-01-01T00:00:00Z",
    });
    const page = (id: string, size: number, total: number) => ({
      conversation: conversation(id),
      items: [],
      page: 1,
      page_size: size,
      total,
      has_more: false,
    });
    // Its items disagree with its total too: LIST-5 would break, were the page of the conversation asked for.
    const other = judged(
      exchange("GET", `/conversations/${ID}/messages`, {
        status: 200,
        response: page("5a7d1c2e-3b4f-4a6e-8c9d-0e1f2a3b4c5d", 50, 5),
      }),
    );
    expect(other.violations.map((v) => [v.requirement, v.detail])).toEqual([
      ["LIST-1", `the listing of ${ID} names conversation 5a7d1c2e-3b4f-4a6e-8c9d-0e1f2a3b4c5d`],
    ]);
    expect([other.status("LIST-3"), other.status("LIST-5")]).toEqual(["not_observed", "not_observed"]);
    const oversized = judged(
      exchange("GET", `/conversations/${ID}/messages?page_size=150`, { status: 200, response: page(ID, 150, 0) }),
    );
    expect(oversized.violations.map((v) => [v.requirement, v.detail])).toEqual([
      ["LIST-3", "a listing: served with page_size 150 (maximum 100)"],
    ]);
    expect([oversized.status("LIST-1"), oversized.status("LIST-5")]).toEqual(["pass", "pass"]);
  });

  test("a listing that does not echo the page_size it asked for breaks LIST-5; one that does, or one whose page_size was out of bounds, does not", () => {
    const page = (size: number) => ({
      conversation: { id: ID, created_at: "2026-01-01T00:00:00Z", updated_at: "2026-01-01T00:00:00Z" },
      items: [],
      page: 3,
      page_size: size,
      total: 0,
      has_more: false,
    });
    const listing = (query: string, size: number) =>
      exchange("GET", `/conversations/${ID}/messages?${query}`, { status: 200, response: page(size) });
    const { violations } = judged(listing("page=3&page_size=100", 99));
    expect(violations.map((v) => [v.requirement, v.detail])).toEqual([
      ["LIST-5", "the echoed page_size of a listing that asked for page_size 100: expected 100, got 99"],
    ]);
    expect(
      judged(listing("page=3&page_size=100", 100), listing("page=3&page_size=500", 100)).violations.filter(
        (v) => v.requirement === "LIST-5",
      ),
    ).toEqual([]);
  });

  test("exit codes: 1 for a broken MUST, 0 for a broken SHOULD unless strict, 2 with nothing judged", () => {
    const broken = judged(
      create("k", { message: "hi" }, 200, { conversation_id: "nope", response: "x", citations: [] }),
    );
    expect(trafficExitCode(broken.report)).toBe(1);
    // A conversation this traffic did not make: only the 404's error code is judged.
    const should = judged(
      exchange("GET", "/conversations/9d1e2f3a-0000-4000-8000-000000000000/messages", {
        status: 404,
        response: { error: { code: "gone" } },
      }),
    );
    expect(should.status("LIST-9")).toBe("warn");
    expect(trafficExitCode(should.report)).toBe(0);
    const nothing = judged();
    expect(trafficExitCode(nothing.report)).toBe(2);
  });
});

test("with no traffic every requirement is not_observed, none pass", () => {
  const { report } = judged();
  expect(new Set(report.requirements.map((r) => r.status))).toEqual(new Set(["not_observed"]));
  const { service, client } = report.counts;
  expect(service.not_observed + client.not_observed).toBe(REQUIREMENTS.length);
});
