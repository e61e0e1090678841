/**
 * A verdict held back for listing lag is decided later, never passed: a listing that lacks a
 * streamed continuation inside --settle-ms (as the suite's own settled reads do) is decided by a
 * later listing, by the conversation's delete, or by the end of the traffic; where nothing
 * decides it, it is undecided in every report, with the exchanges that held it.
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

function exchange(sequence: number, at: number, method: string, path: string, status: number, init: { body?: unknown; key?: string; response?: string; stream?: boolean } = {}): ObservedExchange {
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
    response: { status, headers: { "content-type": init.stream === true ? "text/event-stream" : "application/json" }, body: init.response ?? "", complete: true, chunks: undefined },
    failure: undefined,
    durationMs: 10,
  };
}

const created = (n: number, at: number) =>
  exchange(n, at, "POST", "/responses", 200, { body: { message: "m1" }, key: "k1", response: JSON.stringify({ conversation_id: A, response: "answer to m1", citations: [] }) });

function streamed(n: number, at: number): ObservedExchange {
  const events = [
    ["response.created", { type: "response.created", conversation_id: A }],
    ["response.output_text.delta", { type: "response.output_text.delta", delta: "answer to m2" }],
    ["response.completed", { type: "response.completed", response: { conversation_id: A, output_text: "answer to m2", citations: [] } }],
  ].map(([event, data]) => `event: ${String(event)}\ndata: ${JSON.stringify(data)}\n\n`).join("");
  return exchange(n, at, "POST", "/responses/stream", 200, { body: { message: "m2", conversation_id: A }, key: "k2", response: events, stream: true });
}

function listed(n: number, at: number, messages: readonly string[]): ObservedExchange {
  const items = messages.flatMap((m) => [{ role: "user", content: m }, { role: "assistant", content: `answer to ${m}` }]);
  const page = { conversation: { id: A, created_at: "2026-11-25T10:00:00Z", updated_at: "2026-11-25T10:00:00Z" }, items, page: 1, page_size: 50, total: items.length, has_more: false };
  return exchange(n, at, "GET", `/conversations/${A}/messages`, 200, { response: JSON.stringify(page) });
}

const deleted = (n: number, at: number) => exchange(n, at, "DELETE", `/conversations/${A}`, 204);
/** Not an operation of the spec: the traffic goes on until then. */
const health = (n: number, at: number) => exchange(n, at, "GET", "/health", 200, { response: "{}" });

/** A create, a streamed continuation the service never lists, and listings read as the suite settles them (inside the window). */
const lostStream = (): ObservedExchange[] => [created(0, 0), listed(1, 50, ["m1"]), streamed(2, 100), listed(3, 200, ["m1"]), listed(4, 700, ["m1"]), listed(5, 2_600, ["m1"])];

function judged(exchanges: readonly ObservedExchange[]) {
  const judge = createTrafficJudge({ target: "test", redactor: new Redactor(["sk-1"]), settleMs: SETTLE_MS });
  const violations = [...exchanges.flatMap((e) => judge.observe(e)), ...judge.finish()].filter((v) => !v.requirement.startsWith("CLIENT-"));
  const report = judge.report();
  return { violations, report, status: (id: string) => report.requirements.find((r) => r.id === id)?.status };
}

describe("a listing inside --settle-ms that lacks a streamed continuation", () => {
  test("is decided against the service by the conversation's delete, however soon it came", () => {
    const { violations, status, report } = judged([...lostStream(), deleted(6, 2_700)]);
    expect(violations.map((v) => v.requirement)).toEqual(["SSE-8"]);
    expect(violations[0]?.detail).toMatch(/the exchange of #2 is not among the items.*no listing showed it before the conversation's delete, DELETE \/v1\/agents\/agent-a\/conversations\/\S+ → 204 \(#6\)/);
    expect(status("SSE-8")).toBe("fail");
    expect(report.result).toBe("fail");
  });

  test("is taken back by a later listing that shows it: the service lagged", () => {
    const { violations, status, report } = judged([...lostStream(), listed(6, 2_650, ["m1", "m2"]), deleted(7, 2_700)]);
    expect(violations).toEqual([]);
    expect(status("SSE-8")).toBe("pass");
    expect(report.traffic.undecided).toEqual([]);
  });

  test("is decided against the service by the end of the traffic once the window had passed", () => {
    const { violations, status } = judged([...lostStream(), health(6, 6_000)]);
    expect(violations.map((v) => v.requirement)).toEqual(["SSE-8"]);
    expect(violations[0]?.detail).toMatch(/no listing showed it in the 3000 ms --settle-ms window, nor before the traffic ended/);
    expect(status("SSE-8")).toBe("fail");
  });

  test("is undecided when the traffic ended inside the window: named in the console, conformance.json, JUnit and HTML, never a pass", () => {
    const { violations, status, report } = judged(lostStream());
    expect(violations).toEqual([]);
    expect(status("SSE-8")).toBe("inconclusive");
    expect(report.traffic.service.result).toBe("undecided");
    expect(report.result).toBe("incomplete");
    expect(trafficExitCode(report)).toBe(3);
    expect(report.incomplete.map((i) => i.id)).toEqual(["SSE-8"]);
    // Every listing that lacked it, by its number.
    expect(report.traffic.undecided).toMatchObject([{ requirement: "SSE-8", exchanges: [expect.stringMatching(/\(#3\)$/), expect.stringMatching(/\(#4\)$/), expect.stringMatching(/\(#5\)$/)] }]);
    const lines = trafficSummaryLines(report, "reports");
    expect(lines).toContainEqual(expect.stringMatching(/^ {2}UNDECIDED SSE-8 MUST: GET \S+ → 200 \(#3\), GET \S+ → 200 \(#4\), GET \S+ → 200 \(#5\): .*the traffic ended \d+ ms before the 3000 ms --settle-ms window had passed/));
    expect(lines).toContainEqual(expect.stringMatching(/^Service: UNDECIDED — \d+ pass, 0 fail, 0 warn, 1 undecided, \d+ not observed$/));
    expect(lines).toContainEqual(expect.stringMatching(/^Result: INCOMPLETE \(--gate service\) — 6 exchange\(s\) judged; a gated verdict was never decided$/));
    expect(junitXml(report)).toMatch(/\[SSE-8\][^\n]*<skipped message="undecided: 1 verdict/);
    const page = renderTrafficHtml(report);
    expect(page).toMatch(/<div class="banner inconclusive" role="status" id="result"><strong>INCOMPLETE<\/strong>/);
    expect(page).toMatch(/<dd id="undecided"><ul><li><strong>SSE-8<\/strong> GET [^<]*\(#3\), GET [^<]*\(#4\), GET [^<]*\(#5\)/);
  });
});
