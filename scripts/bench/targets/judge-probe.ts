/**
 * Benchmark worker, run with --expose-gc: what the traffic judge costs per exchange and per
 * conversation it remembers. Synthetic traffic is judged in this process, as the proxy's judging
 * thread judges it: per conversation a create, a plain continuation, a streamed continuation, a
 * replay of the first key and a listing, each answered as a conforming service answers. The heap
 * after full collections is read before and after.
 */
import { randomUUID } from "node:crypto";
import { Redactor } from "../../../suite/http/redact.ts";
import type { ObservedExchange } from "../../../suite/traffic/exchange.ts";
import { createTrafficJudge } from "../../../suite/traffic/judge.ts";
import { serveCalls } from "../worker.ts";
import { settledHeap } from "./settled-heap.ts";

const BASE = "http://service.example/v1/agents/agent-a";

/** One conversation's five exchanges, numbered from `first`, starting at `at` (epoch ms). */
function conversationTraffic(first: number, at: number): ObservedExchange[] {
  const id = randomUUID();
  const key = randomUUID();
  const headers = (extra: Record<string, string> = {}) => ({
    authorization: "Bearer sk-bench",
    "content-type": "application/json",
    ...extra,
  });
  const answer = (message: string) =>
    JSON.stringify({ conversation_id: id, response: `Answer to ${message}.`, citations: [] });
  const exchange = (
    n: number,
    method: string,
    path: string,
    requestHeaders: Record<string, string>,
    body: string | undefined,
    status: number,
    contentType: string,
    text: string,
  ): ObservedExchange => ({
    sequence: first + n,
    startedAt: at + n * 20,
    request: { method, url: `${BASE}${path}`, headers: requestHeaders, body },
    response: { status, headers: { "content-type": contentType }, body: text, complete: true, chunks: undefined },
    failure: undefined,
    durationMs: 10,
  });
  const streamed = [
    ["response.created", { type: "response.created", conversation_id: id }],
    ["response.output_text.delta", { type: "response.output_text.delta", delta: "Answer to m3." }],
    [
      "response.completed",
      { type: "response.completed", response: { conversation_id: id, output_text: "Answer to m3.", citations: [] } },
    ],
  ]
    .map(([event, data]) => `event: ${String(event)}\ndata: ${JSON.stringify(data)}\n\n`)
    .join("");
  const items = ["m1", "m2", "m3"].flatMap((m) => [
    { role: "user", content: m },
    { role: "assistant", content: `Answer to ${m}.` },
  ]);
  const page = JSON.stringify({
    conversation: { id, created_at: "2026-11-25T10:00:00Z", updated_at: "2026-11-25T10:00:01Z" },
    items,
    page: 1,
    page_size: 50,
    total: items.length,
    has_more: false,
  });
  return [
    exchange(
      0,
      "POST",
      "/responses",
      headers({ "idempotency-key": key }),
      JSON.stringify({ message: "m1" }),
      200,
      "application/json",
      answer("m1"),
    ),
    exchange(
      1,
      "POST",
      "/responses",
      headers({ "idempotency-key": randomUUID() }),
      JSON.stringify({ message: "m2", conversation_id: id }),
      200,
      "application/json",
      answer("m2"),
    ),
    exchange(
      2,
      "POST",
      "/responses/stream",
      headers({ "idempotency-key": randomUUID(), accept: "text/event-stream" }),
      JSON.stringify({ message: "m3", conversation_id: id }),
      200,
      "text/event-stream",
      streamed,
    ),
    exchange(
      3,
      "POST",
      "/responses",
      headers({ "idempotency-key": key }),
      JSON.stringify({ message: "m1" }),
      200,
      "application/json",
      answer("m1"),
    ),
    exchange(4, "GET", `/conversations/${id}/messages`, headers(), undefined, 200, "application/json", page),
  ];
}

export interface JudgeProbeResult {
  exchanges: number;
  judgeMs: number;
  heapBeforeBytes: number;
  heapAfterBytes: number;
  /** Violations found: a conforming traffic must show none. */
  violations: number;
}

serveCalls({
  async judge({ conversations }: { conversations: number }): Promise<JudgeProbeResult> {
    // Before the traffic is made: the traffic is let go before the heap is read again.
    const heapBeforeBytes = await settledHeap();
    const traffic = Array.from({ length: conversations }, (_, i) =>
      conversationTraffic(i * 5, 1_795_000_000_000 + i * 200),
    ).flat();
    const judge = createTrafficJudge({ target: "bench", redactor: new Redactor(["sk-bench"]), settleMs: 0 });
    const started = performance.now();
    let violations = 0;
    for (const exchange of traffic)
      violations += judge.observe(exchange).filter((v) => !v.requirement.startsWith("CLIENT-")).length;
    const judgeMs = performance.now() - started;
    traffic.length = 0;
    const heapAfterBytes = await settledHeap();
    // The judge is alive until here, with every conversation it remembers.
    violations += judge.finish().filter((v) => !v.requirement.startsWith("CLIENT-")).length;
    return { exchanges: conversations * 5, judgeMs, heapBeforeBytes, heapAfterBytes, violations };
  },
});
