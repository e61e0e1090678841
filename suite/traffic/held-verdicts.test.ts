/**
 * A verdict held back for listing lag is decided later, never passed: a listing that lacks a
 * streamed continuation inside --settle-ms (as the suite's own settled reads do) is taken back by
 * a later listing that shows it; when the conversation's delete or the end of the traffic leaves
 * no later read, a listing in the window's second half that lacked it decides against the
 * service, and earlier ones alone leave it undecided in every report, with their exchanges. A
 * violation that stops the model judging the conversation decides it as the end would.
 */
import { describe, expect, test } from "vitest";
import { Redactor } from "../http/redact.ts";
import type { ObservedExchange } from "./exchange.ts";
import { createTrafficJudge, trafficExitCode } from "./judge.ts";
import { junitXml, trafficSummaryLines } from "./reports.ts";
import { renderTrafficHtml } from "./report-html.ts";

const A = "0b6c2a55-4a4b-4c8e-9a52-6f1d1f3c1a01";
const BASE = "http://service.example/v1/agents/agent-a";
const SETTLE_MS = 3_000;

function exchange(
  sequence: number,
  at: number,
  method: string,
  path: string,
  status: number,
  init: { body?: unknown; key?: string; response?: string; stream?: boolean } = {},
): ObservedExchange {
  return {
    sequence,
    startedAt: at,
    request: {
      method,
      url: `${BASE}${path}`,
      headers: {
        authorization: "Bearer sk-1",
        "content-type": "application/json",
        ...(init.key === undefined ? {} : { "idempotency-key": init.key }),
        ...(init.stream === true ? { accept: "text/event-stream" } : {}),
      },
      body: init.body === undefined ? undefined : JSON.stringify(init.body),
    },
    response: {
      status,
      headers: { "content-type": init.stream === true ? "text/event-stream" : "application/json" },
      body: init.response ?? "",
      complete: true,
      chunks: undefined,
    },
    failure: undefined,
    durationMs: 10,
  };
}

const created = (n: number, at: number) =>
  exchange(n, at, "POST", "/responses", 200, {
    body: { message: "m1" },
    key: "k1",
    response: JSON.stringify({ conversation_id: A, response: "answer to m1", citations: [] }),
  });

function streamed(n: number, at: number): ObservedExchange {
  const events = [
    ["response.created", { type: "response.created", conversation_id: A }],
    ["response.output_text.delta", { type: "response.output_text.delta", delta: "answer to m2" }],
    [
      "response.completed",
      { type: "response.completed", response: { conversation_id: A, output_text: "answer to m2", citations: [] } },
    ],
  ]
    .map(([event, data]) => `event: ${String(event)}\ndata: ${JSON.stringify(data)}\n\n`)
    .join("");
  return exchange(n, at, "POST", "/responses/stream", 200, {
    body: { message: "m2", conversation_id: A },
    key: "k2",
    response: events,
    stream: true,
  });
}

/** A listing of these items, all on one page. */
function listedItems(n: number, at: number, items: readonly { role: string; content: string }[]): ObservedExchange {
  const page = {
    conversation: { id: A, created_at: "2026-11-25T10:00:00Z", updated_at: "2026-11-25T10:00:00Z" },
    items,
    page: 1,
    page_size: 50,
    total: items.length,
    has_more: false,
  };
  return exchange(n, at, "GET", `/conversations/${A}/messages`, 200, { response: JSON.stringify(page) });
}

const exchangeItems = (messages: readonly string[]) =>
  messages.flatMap((m) => [
    { role: "user", content: m },
    { role: "assistant", content: `answer to ${m}` },
  ]);

const listed = (n: number, at: number, messages: readonly string[]) => listedItems(n, at, exchangeItems(messages));

/** A plain continuation of the conversation. */
const continued = (n: number, at: number, message: string) =>
  exchange(n, at, "POST", "/responses", 200, {
    body: { message, conversation_id: A },
    key: `k-${message}`,
    response: JSON.stringify({ conversation_id: A, response: `answer to ${message}`, citations: [] }),
  });

/** A listing of two exchanges whole and of the streamed continuation's message alone (stored in part). */
const listedInPart = (n: number, at: number) =>
  listedItems(n, at, [...exchangeItems(["m1", "m0"]), { role: "user", content: "m2" }]);

const deleted = (n: number, at: number) => exchange(n, at, "DELETE", `/conversations/${A}`, 204);
/** Not an operation of the spec: the traffic goes on until then. */
const health = (n: number, at: number) => exchange(n, at, "GET", "/health", 200, { response: "{}" });

/** A create, a streamed continuation the service never lists, and listings read as the suite settles them (inside the window). */
const lostStream = (): ObservedExchange[] => [
  created(0, 0),
  listed(1, 50, ["m1"]),
  streamed(2, 100),
  listed(3, 200, ["m1"]),
  listed(4, 700, ["m1"]),
  listed(5, 2_600, ["m1"]),
];

function judged(exchanges: readonly ObservedExchange[]) {
  const judge = createTrafficJudge({ target: "test", redactor: new Redactor(["sk-1"]), settleMs: SETTLE_MS });
  const violations = [...exchanges.flatMap((e) => judge.observe(e)), ...judge.finish()].filter(
    (v) => !v.requirement.startsWith("CLIENT-"),
  );
  const report = judge.report();
  return { violations, report, status: (id: string) => report.requirements.find((r) => r.id === id)?.status };
}

describe("a listing inside --settle-ms that lacks a streamed continuation", () => {
  test("is decided against the service by the conversation's delete, once a listing in the window's second half lacked it, as the suite's settled reads do", () => {
    const { violations, status, report } = judged([...lostStream(), deleted(6, 2_700)]);
    expect(violations.map((v) => v.requirement)).toEqual(["SSE-8"]);
    expect(violations[0]?.detail).toMatch(
      /the exchange of #2 is not among the items.*no listing showed it: the last read without it began \d+ ms after the write, in the second half of the 3000 ms --settle-ms window \(where the suite's settling reads last\), and no later read came before the conversation's delete, DELETE \/v1\/agents\/agent-a\/conversations\/\S+ → 204 \(#6\)$/,
    );
    expect(status("SSE-8")).toBe("fail");
    expect(report.result).toBe("fail");
  });

  test("is decided the same way when the traffic ends", () => {
    const { violations, status } = judged(lostStream());
    expect(violations.map((v) => v.requirement)).toEqual(["SSE-8"]);
    expect(violations[0]?.detail).toMatch(/no later read came before the end of the traffic$/);
    expect(status("SSE-8")).toBe("fail");
  });

  test("is decided when a violation stops the model judging the conversation: a later listing of contents it no longer knows takes nothing back", () => {
    // A replay of k1 answered with another result (IDEM-1): the model no longer knows what the conversation holds.
    const replayedOtherwise = exchange(6, 2_700, "POST", "/responses", 200, {
      body: { message: "m1" },
      key: "k1",
      response: JSON.stringify({ conversation_id: A, response: "another answer", citations: [] }),
    });
    const { violations, status } = judged([...lostStream(), replayedOtherwise, listed(7, 2_800, ["m1", "m2"])]);
    expect(violations.map((v) => v.requirement).sort()).toEqual(["IDEM-1", "SSE-8"]);
    expect(violations.find((v) => v.requirement === "SSE-8")?.detail).toMatch(
      /no later read came before the model stopped judging this conversation \(a write it could not explain, POST \S+ → 200 \(#6\)\)$/,
    );
    expect(status("SSE-8")).toBe("fail");
  });

  test("is taken back by a later listing that shows it: the service lagged", () => {
    const { violations, status, report } = judged([...lostStream(), listed(6, 2_650, ["m1", "m2"]), deleted(7, 2_700)]);
    expect(violations).toEqual([]);
    expect(status("SSE-8")).toBe("pass");
    expect(report.traffic.undecided).toEqual([]);
  });

  test("only in the window's first half, then the conversation deleted or the traffic ended: undecided, named in the console, conformance.json, JUnit and HTML; never a pass, never a failure of a service that may only lag", () => {
    const early = [
      created(0, 0),
      listed(1, 50, ["m1"]),
      streamed(2, 100),
      listed(3, 200, ["m1"]),
      listed(4, 700, ["m1"]),
      listed(5, 1_200, ["m1"]),
    ];
    for (const traffic of [
      [...early, deleted(6, 1_300)],
      [...early, health(6, 6_000)],
    ]) {
      const { violations, status, report } = judged(traffic);
      expect(violations).toEqual([]);
      expect(status("SSE-8")).toBe("inconclusive");
      expect(report.traffic.service.result).toBe("undecided");
      expect(report.result).toBe("incomplete");
      expect(trafficExitCode(report)).toBe(3);
      expect(report.incomplete.map((i) => i.id)).toEqual(["SSE-8"]);
      // Every listing that lacked it, by its number.
      expect(report.traffic.undecided).toMatchObject([
        {
          requirement: "SSE-8",
          exchanges: [
            expect.stringMatching(/\(#3\)$/),
            expect.stringMatching(/\(#4\)$/),
            expect.stringMatching(/\(#5\)$/),
          ],
        },
      ]);
      expect(report.traffic.undecided[0]?.reason).toMatch(
        /^no read came in the second half of the 3000 ms --settle-ms window before (the conversation's delete, DELETE \S+ → 204 \(#6\)|the end of the traffic) \(the last began \d+ ms after the write\): the service may only have lagged$/,
      );
      const lines = trafficSummaryLines(report, "reports");
      expect(lines).toContainEqual(
        expect.stringMatching(
          /^ {2}UNDECIDED SSE-8 MUST: GET \S+ → 200 \(#3\), GET \S+ → 200 \(#4\), GET \S+ → 200 \(#5\): .*; undecided: no read came in the second half/,
        ),
      );
      expect(lines).toContainEqual(
        expect.stringMatching(/^Service: UNDECIDED — \d+ pass, 0 fail, 0 warn, 1 undecided, \d+ not observed$/),
      );
      expect(lines).toContainEqual(
        expect.stringMatching(
          /^Result: INCOMPLETE \(--gate service\) — \d+ exchange\(s\) judged; a gated verdict was never decided$/,
        ),
      );
      expect(junitXml(report)).toMatch(/\[SSE-8\][^\n]*<skipped message="undecided: 1 verdict/);
      const page = renderTrafficHtml(report);
      expect(page).toMatch(/<div class="banner inconclusive" role="status" id="result"><strong>INCOMPLETE<\/strong>/);
      expect(page).toMatch(
        /<dd id="undecided"><ul><li><strong>SSE-8<\/strong> GET [^<]*\(#3\), GET [^<]*\(#4\), GET [^<]*\(#5\)/,
      );
    }
  });
});

describe("a listing inside --settle-ms that shows a dropped stream's message without its answer", () => {
  test("fails at once, as the suite's model fails it: a lagging listing shows an exchange whole or not at all", () => {
    const whole = streamed(3, 150);
    const received = whole.response?.body ?? "";
    // The client left after the first delta: what it received, and no end.
    const cut: ObservedExchange =
      whole.response === undefined
        ? whole
        : {
            ...whole,
            response: {
              ...whole.response,
              body: `${received.split("\n\n").slice(0, 2).join("\n\n")}\n\n`,
              complete: false,
            },
          };
    const { violations, status, report } = judged([
      created(0, 0),
      listed(1, 50, ["m1"]),
      continued(2, 60, "m0"),
      cut,
      listedInPart(4, 300),
      deleted(5, 400),
    ]);
    expect(violations.map((v) => v.requirement)).toEqual(["SSE-8"]);
    expect(violations[0]?.detail).toMatch(/the exchange of #3 is stored in part/);
    expect(status("SSE-8")).toBe("fail");
    expect(report.traffic.undecided).toEqual([]);
  });
});
