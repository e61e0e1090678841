/**
 * The traffic judge's verdicts in the corners where a gate must not be wrong: the reused key of
 * any refused create, times recorded to the millisecond (HAR) against the live ones, the gate
 * between the service's and the client's verdicts, and exchanges that got no answer.
 */
import { describe, expect, test } from "vitest";
import { Redactor } from "../http/redact.ts";
import type { ObservedExchange } from "./exchange.ts";
import type { Gate } from "./gate.ts";
import { readHar, writeHar } from "./har.ts";
import { createTrafficJudge, trafficExitCode } from "./judge.ts";
import { trafficSummaryLines } from "./reports.ts";

const ID = "0b6c2a55-4a4b-4c8e-9a52-6f1d1f3c1a01";
const BASE = "http://service.example/v1/agents/agent-a";

interface Exchange {
  body?: unknown;
  key?: string;
  headers?: Record<string, string>;
  status?: number;
  response?: unknown;
  at: number;
  ms: number;
}

function create(sequence: number, init: Exchange, path = "/responses"): ObservedExchange {
  const text = init.response === undefined ? "" : JSON.stringify(init.response);
  return {
    sequence,
    startedAt: init.at,
    request: {
      method: "POST",
      url: `${BASE}${path}`,
      headers: {
        authorization: "Bearer sk-live-1",
        "content-type": "application/json",
        ...(init.key === undefined ? {} : { "idempotency-key": init.key }),
        ...init.headers,
      },
      body: JSON.stringify(init.body ?? { message: "hi" }),
    },
    response:
      init.status === undefined
        ? undefined
        : {
            status: init.status,
            headers: { "content-type": "application/json" },
            body: text,
            complete: true,
            chunks: undefined,
          },
    failure: init.status === undefined ? "the upstream could not be reached: connect ECONNREFUSED" : undefined,
    durationMs: init.ms,
  };
}

const answer = { conversation_id: ID, response: "Hello.", citations: [] };
const conflict = { error: { code: "idempotency_conflict", message: "key in use" } };

function judgeAll(exchanges: readonly ObservedExchange[], gate?: Gate) {
  const judge = createTrafficJudge({
    target: "test",
    redactor: new Redactor([]),
    settleMs: 3_000,
    ...(gate === undefined ? {} : { gate }),
  });
  // What the model judges across requests may come only when the traffic is over.
  const violations = [...exchanges.flatMap((e) => judge.observe(e)), ...judge.finish()].map((v) => v.requirement);
  const report = judge.report();
  return { violations, report, judge, status: (id: string) => report.requirements.find((r) => r.id === id)?.status };
}

describe("a key reused after a refused create", () => {
  test("refused for invalid metadata though its message was a string: a 409 for the key with another payload breaks IDEM-3", () => {
    const { violations } = judgeAll([
      create(0, {
        key: "k",
        body: { message: "hi", metadata: "not an object" },
        status: 422,
        response: { error: { code: "invalid_request", message: "metadata" } },
        at: 1_000,
        ms: 5,
      }),
      create(1, { key: "k", body: { message: "hi" }, status: 409, response: conflict, at: 1_100, ms: 5 }),
    ]);
    expect(violations).toEqual(["IDEM-3"]);
  });

  test("refused for a message that was not a string: a 409 breaks RESP-4; the refused body sent again and refused again is not judged", () => {
    const refused = (sequence: number, at: number) =>
      create(sequence, {
        key: "k",
        body: { message: 42 },
        status: 400,
        response: { error: { code: "invalid_request" } },
        at,
        ms: 5,
      });
    const held = judgeAll([
      refused(0, 1_000),
      create(1, { key: "k", status: 409, response: conflict, at: 1_100, ms: 5 }),
    ]);
    expect(held.violations).toEqual(["RESP-4"]);
    const again = judgeAll([refused(0, 1_000), refused(1, 1_100)]);
    expect(again.violations).toEqual([]);
  });

  test("the key served after a refusal passes, and is then judged as an accepted key", () => {
    const { violations, status } = judgeAll([
      create(0, {
        key: "k",
        body: { message: "hi", metadata: [1] },
        status: 400,
        response: { error: { code: "invalid_request" } },
        at: 1_000,
        ms: 5,
      }),
      create(1, { key: "k", status: 200, response: answer, at: 1_100, ms: 5 }),
      create(2, { key: "k", body: { message: "other" }, status: 409, response: conflict, at: 1_200, ms: 5 }),
    ]);
    // The client broke CLIENT-3 (a key reused with another body); the service broke nothing.
    expect(violations).toEqual(["CLIENT-3"]);
    expect(status("IDEM-3")).toBe("pass");
  });
});

describe("times recorded to the millisecond", () => {
  test("requests one after the other within a millisecond keep their live verdicts when judged from the proxy's HAR", () => {
    // Live: the refusal ends at 1000.9, the valid create starts at 1000.95. The HAR rounds
    // both starts down to 1000 and keeps the durations, so the refusal seems to end after it.
    const live = [
      create(0, {
        key: "k",
        body: { message: 42 },
        status: 400,
        response: { error: { code: "invalid_request" } },
        at: 1_000.1,
        ms: 0.8,
      }),
      create(1, { key: "k", status: 409, response: conflict, at: 1_000.95, ms: 0.4 }),
      create(2, { key: "r", status: 200, response: answer, at: 1_002.3, ms: 0.65 }),
      create(3, { key: "r", status: 200, response: { ...answer, response: "Another." }, at: 1_002.98, ms: 0.5 }),
    ];
    const offline = readHar(JSON.stringify(writeHar(live)), "proxy.har");
    const liveVerdicts = judgeAll(live).violations;
    expect(liveVerdicts).toEqual(["RESP-4", "IDEM-1"]);
    expect(judgeAll(offline).violations).toEqual(liveVerdicts);
  });

  test("an overlap of a millisecond or more is concurrency: the second request is not compared with the first", () => {
    const { status } = judgeAll([
      create(0, { key: "k", status: 200, response: answer, at: 1_000, ms: 3 }),
      create(1, { key: "k", status: 409, response: conflict, at: 1_001, ms: 1 }),
    ]);
    expect(status("IDEM-1")).toBe("not_observed");
  });
});

describe("the gate", () => {
  // A create without an Idempotency-Key (CLIENT-2) that the service refuses as it should (IDEM-6).
  const careless = [
    create(0, {
      status: 400,
      response: { error: { code: "missing_idempotency_key", message: "send one" } },
      at: 1_000,
      ms: 5,
    }),
  ];

  test("a careless client against a conforming service: the service gate passes, the client and both gates fail", () => {
    const results = (["service", "client", "both"] as const).map((gate) => {
      const { report } = judgeAll(careless, gate);
      return [
        gate,
        report.result,
        trafficExitCode(report),
        report.traffic.service.result,
        report.traffic.client.result,
      ];
    });
    expect(results).toEqual([
      ["service", "pass", 0, "pass", "fail"],
      ["client", "fail", 1, "pass", "fail"],
      ["both", "fail", 1, "pass", "fail"],
    ]);
  });

  test("the client's messages say nothing of a fake when judging traffic", () => {
    const stream = create(
      0,
      { key: "s", status: 400, response: { error: { code: "invalid_request" } }, at: 1_000, ms: 5 },
      "/responses/stream",
    );
    const judge = createTrafficJudge({ target: "test", redactor: new Redactor([]) });
    const violations = judge.observe(stream);
    const accept = violations.find((v) => v.requirement === "CLIENT-5");
    expect(accept?.detail).toMatch(/Accept: text\/event-stream/);
    expect(accept?.detail).not.toMatch(/fake/);
  });
});

describe("exchanges that got no answer", () => {
  test("are counted, never judged, and a run of nothing else is an error with that diagnosis", () => {
    const unanswered = [create(0, { key: "a", at: 1_000, ms: 2 }), create(1, { key: "b", at: 1_010, ms: 2 })];
    const judge = createTrafficJudge({ target: "test", redactor: new Redactor([]), source: "proxy" });
    expect(unanswered.flatMap((e) => judge.observe(e))).toEqual([]);
    const report = judge.report();
    expect([judge.judged, judge.unanswered, report.result, trafficExitCode(report)]).toEqual([0, 2, "error", 2]);
    expect(report.diagnosis).toMatch(
      /^nothing was judged: the upstream never answered; each of the 2 request\(s\) got the proxy's 502 upstream_unreachable \(the upstream could not be reached/,
    );
    expect(new Set(report.requirements.map((r) => r.status))).toEqual(new Set(["not_observed"]));
  });

  test("beside answered ones they are counted apart, and the answered ones set the result", () => {
    const { report, judge } = judgeAll([
      create(0, { key: "a", at: 1_000, ms: 2 }),
      create(1, { key: "b", status: 200, response: answer, at: 1_010, ms: 2 }),
    ]);
    expect([judge.judged, judge.unanswered, report.result]).toEqual([1, 1, "pass"]);
    expect(report.traffic.exchanges).toEqual({ seen: 2, judged: 1, unread: 0, unanswered: 1, incomplete: 0 });
  });
});

describe("a run that judged nothing", () => {
  test("a proxy that saw no request says that nothing was judged, never PASS, and is exit 2", () => {
    const judge = createTrafficJudge({ target: "test", redactor: new Redactor([]), source: "proxy" });
    const report = judge.report();
    const lines = trafficSummaryLines(report, "reports");
    expect(lines.join("\n")).not.toMatch(/PASS/);
    expect(lines).toContain("Result: ERROR — nothing was judged: no request reached the proxy");
    expect([report.result, trafficExitCode(report)]).toEqual(["error", 2]);
  });
});

describe("exchanges cut before they ended (the proxy stopped, the client hung up)", () => {
  const STOPPED = "the proxy stopped before the exchange ended";
  const cut = (e: ObservedExchange): ObservedExchange => ({
    ...e,
    response: undefined,
    failure: STOPPED,
    incomplete: true,
  });

  test("alone, they are counted incomplete, never as unanswered, and the diagnosis says they got no whole answer", () => {
    const judge = createTrafficJudge({ target: "test", redactor: new Redactor([]), source: "proxy" });
    judge.observe(cut(create(0, { key: "a", at: 1_000, ms: 3_000 })));
    const report = judge.report();
    expect(report.traffic.exchanges).toEqual({ seen: 1, judged: 0, unread: 0, unanswered: 0, incomplete: 1 });
    expect(report.diagnosis).toBe(
      "nothing was judged: the one request that reached the proxy got no whole answer (1 cut before it ended, still running at the stop or hung up on)",
    );
    expect(trafficSummaryLines(report, "reports").join("\n")).not.toMatch(
      /no request reached the proxy|no answer came from the upstream/,
    );
  });

  test("a continuation cut before its answer may have taken effect: a listing that overlapped it and shows it is no violation", () => {
    const listing = {
      conversation: { id: ID, created_at: "2026-01-01T00:00:00Z", updated_at: "2026-01-01T00:00:00Z" },
      items: [
        { role: "user", content: "hi" },
        { role: "assistant", content: "Hello." },
        { role: "user", content: "more" },
        { role: "assistant", content: "More." },
      ],
      page: 1,
      page_size: 50,
      total: 4,
      has_more: false,
    };
    const list: ObservedExchange = {
      sequence: 2,
      startedAt: 1_500,
      request: {
        method: "GET",
        url: `${BASE}/conversations/${ID}/messages`,
        headers: { authorization: "Bearer sk-live-1" },
        body: undefined,
      },
      response: {
        status: 200,
        headers: { "content-type": "application/json" },
        body: JSON.stringify(listing),
        complete: true,
        chunks: undefined,
      },
      failure: undefined,
      durationMs: 5,
    };
    const { violations, report } = judgeAll([
      create(0, { key: "k1", status: 200, response: answer, at: 1_000, ms: 5 }),
      cut(create(1, { key: "k2", body: { message: "more", conversation_id: ID }, at: 1_100, ms: 2_000 })),
      list,
    ]);
    expect(violations.filter((v) => !v.startsWith("CLIENT-"))).toEqual([]);
    expect(report.traffic.exchanges).toMatchObject({ seen: 3, judged: 2, incomplete: 1, unanswered: 0 });
  });
});
