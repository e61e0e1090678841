/**
 * The traffic judge's judgements across requests, which the executable model makes: the
 * interaction bugs traffic can show, each by its own requirement, and what a conforming
 * service may do between requests (overlap, lag, other keys of its channel) never blamed.
 * Exchanges are handed over as they end, as the proxy does: out of the order they started.
 */
import { describe, expect, test } from "vitest";
import { Redactor } from "../http/redact.ts";
import type { ObservedExchange } from "./exchange.ts";
import { createTrafficJudge } from "./judge.ts";

const A = "0b6c2a55-4a4b-4c8e-9a52-6f1d1f3c1a01";
const B = "1c7d3b66-5b5c-4d9f-8b63-7a2e2a4d2b12";
const BASE = "http://service.example/v1/agents";

interface Call {
  readonly at: number;
  readonly ms?: number;
  readonly token?: string;
  readonly agent?: string;
}

/** One traffic: exchanges numbered as they start, handed to the judge as they end. */
class Traffic {
  readonly exchanges: ObservedExchange[] = [];

  private add(
    call: Call,
    method: string,
    path: string,
    status: number,
    init: { body?: unknown; key?: string; response?: string; stream?: boolean },
  ): void {
    this.exchanges.push({
      sequence: this.exchanges.length,
      startedAt: call.at,
      request: {
        method,
        url: `${BASE}/${call.agent ?? "agent-a"}${path}`,
        headers: {
          authorization: `Bearer ${call.token ?? "sk-1"}`,
          "content-type": "application/json",
          ...(init.key === undefined ? {} : { "idempotency-key": init.key }),
          ...(init.stream === true ? { accept: "text/event-stream" } : {}),
        },
        body: init.body === undefined ? undefined : JSON.stringify(init.body),
      },
      response: {
        status,
        headers: { "content-type": init.stream === true && status === 200 ? "text/event-stream" : "application/json" },
        body: init.response ?? "",
        complete: true,
        chunks: undefined,
      },
      failure: undefined,
      durationMs: call.ms ?? 10,
    });
  }

  create(
    call: Call,
    message: string,
    key: string,
    answer: { id: string; text?: string } | number,
    continues?: string,
  ): void {
    const body = { message, ...(continues === undefined ? {} : { conversation_id: continues }) };
    const response =
      typeof answer === "number"
        ? JSON.stringify({ error: { code: "conflict", message: "no" } })
        : JSON.stringify({
            conversation_id: answer.id,
            response: answer.text ?? `answer to ${message}`,
            citations: [],
          });
    this.add(call, "POST", "/responses", typeof answer === "number" ? answer : 200, { body, key, response });
  }

  stream(call: Call, message: string, key: string, answer: { id: string; text?: string }, continues?: string): void {
    const body = { message, ...(continues === undefined ? {} : { conversation_id: continues }) };
    const text = answer.text ?? `answer to ${message}`;
    const events = [
      ["response.created", { type: "response.created", conversation_id: answer.id }],
      ["response.output_text.delta", { type: "response.output_text.delta", delta: text }],
      [
        "response.completed",
        { type: "response.completed", response: { conversation_id: answer.id, output_text: text, citations: [] } },
      ],
    ]
      .map(([event, data]) => `event: ${String(event)}\ndata: ${JSON.stringify(data)}\n\n`)
      .join("");
    this.add(call, "POST", "/responses/stream", 200, { body, key, response: events, stream: true });
  }

  /** A listing answered with every message: each exchange's user message and its answer, in order. */
  list(
    call: Call,
    id: string,
    messages: readonly string[],
    query = "",
    pageSize = 50,
    total = messages.length * 2,
  ): void {
    const items = messages.flatMap((m) => [
      { role: "user", content: m },
      { role: "assistant", content: `answer to ${m}` },
    ]);
    const number = Number(/page=(\d+)/.exec(query)?.[1] ?? 1);
    const page = {
      conversation: { id, created_at: "2026-11-25T10:00:00Z", updated_at: "2026-11-25T10:00:00Z" },
      items,
      page: number,
      page_size: pageSize,
      total,
      has_more: number * pageSize < total,
    };
    this.add(call, "GET", `/conversations/${id}/messages${query}`, 200, { response: JSON.stringify(page) });
  }

  listGone(call: Call, id: string): void {
    this.add(call, "GET", `/conversations/${id}/messages`, 404, {
      response: JSON.stringify({ error: { code: "conversation_not_found", message: "gone" } }),
    });
  }

  remove(call: Call, id: string, status = 204): void {
    this.add(
      call,
      "DELETE",
      `/conversations/${id}`,
      status,
      status === 404
        ? { response: JSON.stringify({ error: { code: "conversation_not_found", message: "gone" } }) }
        : {},
    );
  }

  /** The judge's verdicts, the exchanges handed over in the order they ended. */
  judged(settleMs = 1_000) {
    const judge = createTrafficJudge({ target: "test", redactor: new Redactor(["sk-1", "sk-2"]), settleMs });
    const byEnd = [...this.exchanges].sort(
      (a, b) => a.startedAt + a.durationMs - (b.startedAt + b.durationMs) || a.sequence - b.sequence,
    );
    const violations = [...byEnd.flatMap((e) => judge.observe(e)), ...judge.finish()].filter(
      (v) => !v.requirement.startsWith("CLIENT-"),
    );
    const report = judge.report();
    return {
      failed: [...new Set(violations.map((v) => v.requirement))].sort(),
      violations,
      status: (id: string) => report.requirements.find((r) => r.id === id)?.status,
    };
  }
}

describe("interaction bugs traffic shows, each by its own requirement", () => {
  test("two continuations at once, one lost (a read-modify-write of the message list): RESP-2; both stored: nothing", () => {
    for (const [listed, failed] of [
      [["m1", "m2"], ["RESP-2"]],
      [["m1", "m2", "m3"], []],
      [["m1", "m3", "m2"], []],
    ] as const) {
      const t = new Traffic();
      t.create({ at: 0 }, "m1", "k1", { id: A });
      t.create({ at: 100, ms: 300 }, "m2", "k2", { id: A }, A);
      t.create({ at: 110, ms: 300 }, "m3", "k3", { id: A }, A);
      t.list({ at: 2_000 }, A, listed);
      expect({ listed, failed: t.judged().failed }).toEqual({ listed, failed });
    }
  });

  test("a streamed continuation that was never stored: SSE-8", () => {
    const t = new Traffic();
    t.create({ at: 0 }, "m1", "k1", { id: A });
    t.stream({ at: 100 }, "m2", "k2", { id: A }, A);
    t.list({ at: 2_000 }, A, ["m1"]);
    expect(t.judged().failed).toEqual(["SSE-8"]);
  });

  test("one key sent to both endpoints at once, run twice, by a service that shares keys between them: IDEM-5", () => {
    const t = new Traffic();
    t.create({ at: 0 }, "m1", "k1", { id: A });
    // The stream replays the plain key: this service shares keys between the endpoints.
    t.stream({ at: 50 }, "m1", "k1", { id: A });
    t.create({ at: 100, ms: 300 }, "m2", "k2", { id: A }, A);
    t.stream({ at: 110, ms: 300 }, "m2", "k2", { id: A }, A);
    t.list({ at: 2_000 }, A, ["m1", "m2", "m2"]);
    expect(t.judged().failed).toEqual(["IDEM-5"]);
  });

  test("a 409 on one endpoint for a key the other used with another payload shows the keys shared: a later race of one key on both, run twice, is IDEM-5", () => {
    for (const [shown, failed] of [
      [true, ["IDEM-5"]],
      [false, []],
    ] as const) {
      const t = new Traffic();
      t.stream({ at: 0 }, "m1", "k1", { id: A });
      // Under keys scoped per endpoint, k1 is fresh on the plain endpoint: only a shared key explains the 409.
      if (shown) t.create({ at: 50 }, "another", "k1", 409);
      t.create({ at: 100, ms: 300 }, "m2", "k2", { id: A }, A);
      t.stream({ at: 110, ms: 300 }, "m2", "k2", { id: A }, A);
      t.list({ at: 2_000 }, A, ["m1", "m2", "m2"]);
      expect({ shown, failed: t.judged().failed }).toEqual({ shown, failed });
    }
  });

  test("a replay on the other endpoint that listings inside --settle-ms show stored once shows the keys shared once the conversation is deleted", () => {
    for (const [deleted, failed] of [
      [true, ["IDEM-5"]],
      [false, []],
    ] as const) {
      const t = new Traffic();
      t.create({ at: 0 }, "b0", "k0", { id: B });
      t.stream({ at: 20 }, "b1", "k1", { id: B }, B);
      t.create({ at: 50 }, "b1", "k1", { id: B }, B);
      // Soon after the replay: under keys scoped per endpoint, the page may lag behind its second exchange.
      t.list({ at: 100 }, B, ["b0", "b1"]);
      // Deleted, no read can show that exchange any more.
      if (deleted) t.remove({ at: 150 }, B);
      t.create({ at: 2_000 }, "m1", "k3", { id: A });
      t.create({ at: 2_100, ms: 300 }, "m2", "k4", { id: A }, A);
      t.stream({ at: 2_110, ms: 300 }, "m2", "k4", { id: A }, A);
      t.list({ at: 4_000 }, A, ["m1", "m2", "m2"]);
      expect({ deleted, failed: t.judged().failed }).toEqual({ deleted, failed });
    }
  });

  test("a delete during a running exchange, undone when the exchange stores its answer: DEL-1; a delete that holds: nothing", () => {
    for (const [gone, failed] of [
      [false, ["DEL-1"]],
      [true, []],
    ] as const) {
      const t = new Traffic();
      t.create({ at: 0 }, "m1", "k1", { id: A });
      t.stream({ at: 100, ms: 500 }, "m2", "k2", { id: A }, A);
      t.remove({ at: 200 }, A);
      if (gone) t.listGone({ at: 3_000 }, A);
      else t.list({ at: 3_000 }, A, ["m1", "m2"]);
      expect({ gone, failed: t.judged().failed }).toEqual({ gone, failed });
    }
  });

  test("a key replayed on the other endpoint, answered otherwise, in a conversation begun before another one showed that the endpoints share keys: IDEM-1", () => {
    const t = new Traffic();
    // Conversation B is continued on the stream under k1, before anything shows how keys are scoped.
    t.create({ at: 0 }, "b0", "k0", { id: B });
    t.stream({ at: 50 }, "b1", "k1", { id: B, text: "first" }, B);
    // Conversation A shows it: the stream replays the plain key k2 (one exchange, listed once).
    t.create({ at: 100 }, "a1", "k2", { id: A });
    t.stream({ at: 200 }, "a1", "k2", { id: A });
    t.list({ at: 2_000 }, A, ["a1"]);
    // B's key replayed on the plain endpoint: the earlier result is due, another came back.
    t.create({ at: 3_000 }, "b1", "k1", { id: B, text: "another" }, B);
    expect(t.judged().failed).toEqual(["IDEM-1"]);
  });

  test("a replay of the first key after later turns, answered with the latest turn: IDEM-1", () => {
    const t = new Traffic();
    t.create({ at: 0 }, "m1", "k1", { id: A, text: "first" });
    t.create({ at: 100 }, "m2", "k2", { id: A, text: "second" }, A);
    t.create({ at: 200 }, "m1", "k1", { id: A, text: "second" });
    const { failed, violations } = t.judged();
    expect(failed).toEqual(["IDEM-1"]);
    expect(violations[0]?.exchange).toMatch(/\(#2\)$/);
  });

  test("another agent under the same key continuing the conversation as its own: SCOPE-4", () => {
    const t = new Traffic();
    t.create({ at: 0 }, "m1", "k1", { id: A });
    t.create({ at: 100, agent: "agent-b" }, "m2", "k2", { id: A }, A);
    expect(t.judged().failed).toEqual(["SCOPE-4"]);
  });

  test("a choice one conversation showed binds the next: items that showed the text sent, then another text in a new conversation: RESP-2", () => {
    const t = new Traffic();
    t.create({ at: 0 }, "m1", "k1", { id: A });
    t.list({ at: 2_000 }, A, ["m1"]);
    t.create({ at: 2_100 }, "n1", "j1", { id: B });
    // The service stored n1 as something else: its items show another text in the exchange's place.
    t.list({ at: 4_200 }, B, ["n1 altered"]);
    expect(t.judged().failed).toEqual(["RESP-2"]);
  });

  test("a listing with page alone served with another page_size: LIST-2", () => {
    const t = new Traffic();
    t.create({ at: 0 }, "m1", "k1", { id: A });
    t.list({ at: 2_000 }, A, ["m1"], "?page=1", 20);
    expect(t.judged().failed).toEqual(["LIST-2"]);
  });
});

describe("what a conforming service may do between requests", () => {
  test("a stream that ended after a listing it overlapped may be in that listing: no violation, whatever order they end in", () => {
    const t = new Traffic();
    t.create({ at: 0 }, "m1", "k1", { id: A });
    t.stream({ at: 100, ms: 900 }, "m2", "k2", { id: A }, A);
    t.list({ at: 300, ms: 10 }, A, ["m1", "m2"]);
    t.list({ at: 2_500 }, A, ["m1", "m2"]);
    expect(t.judged().failed).toEqual([]);
  });

  test("listings that lag behind a write within --settle-ms: no violation; the settled one judges", () => {
    const t = new Traffic();
    t.create({ at: 0 }, "m1", "k1", { id: A });
    t.listGone({ at: 20 }, A);
    t.create({ at: 100 }, "m2", "k2", { id: A }, A);
    t.list({ at: 200 }, A, ["m1"]);
    t.list({ at: 2_000 }, A, ["m1", "m2"]);
    const { failed, status } = t.judged();
    expect(failed).toEqual([]);
    expect(status("RESP-2")).toBe("pass");
  });

  test("a lagging page that fits a wrong counting (4 messages of 3 exchanges, one each) teaches nothing the settled pages contradict", () => {
    const t = new Traffic();
    t.create({ at: 0 }, "m1", "k1", { id: A });
    t.create({ at: 100 }, "m1", "k1", { id: A });
    t.stream({ at: 200 }, "m2", "k2", { id: A }, A);
    t.create({ at: 400 }, "m3", "k3", { id: A }, A);
    // m3 not shown yet: the full page lacks it (held), the first small page fits "1 message, then 1 per exchange".
    t.list({ at: 500 }, A, ["m1", "m2"]);
    t.list({ at: 550 }, A, ["m1"], "?page=1&page_size=2", 2, 4);
    t.list({ at: 600 }, A, ["m1"], "?page=1&page_size=2", 2, 6);
    t.list({ at: 2_000 }, A, ["m1", "m2", "m3"]);
    expect(t.judged().failed).toEqual([]);
    // Two exchanges not shown yet at first, one a moment later: each page fits some prefix.
    const u = new Traffic();
    u.create({ at: 0 }, "m1", "k1", { id: A });
    u.create({ at: 100 }, "m1", "k1", { id: A });
    u.stream({ at: 200 }, "m2", "k2", { id: A }, A);
    u.create({ at: 400 }, "m3", "k3", { id: A }, A);
    u.list({ at: 500 }, A, ["m1"]);
    u.list({ at: 550 }, A, ["m1"], "?page=1&page_size=2", 2, 4);
    u.list({ at: 600 }, A, ["m2"], "?page=2&page_size=2", 2, 4);
    u.list({ at: 650 }, A, ["m3"], "?page=3&page_size=2", 2, 6);
    expect(u.judged().failed).toEqual([]);
  });

  test("another key of the same agent may share its channel: its accepted listing is the owner's, its refusal is not judged", () => {
    const t = new Traffic();
    t.create({ at: 0 }, "m1", "k1", { id: A });
    t.list({ at: 2_000, token: "sk-2" }, A, ["m1"]);
    t.listGone({ at: 2_100, token: "sk-2" }, A);
    t.list({ at: 4_000 }, A, ["m1"]);
    expect(t.judged().failed).toEqual([]);
  });

  test("two conversations are judged apart: a violation in one leaves the other judged", () => {
    const t = new Traffic();
    t.create({ at: 0 }, "m1", "k1", { id: A });
    t.create({ at: 10 }, "n1", "j1", { id: B });
    t.create({ at: 100 }, "m1", "k1", { id: A, text: "changed" });
    t.create({ at: 200 }, "n2", "j2", { id: B }, B);
    t.list({ at: 2_000 }, B, ["n1"]);
    expect(t.judged().failed).toEqual(["IDEM-1", "RESP-2"]);
  });
});
