/**
 * Benchmark worker, run with --expose-gc: heap cost of stored messages, measured as the
 * heapUsed delta after full collections. The store is filled through the fake's internal
 * API (as fast as memory allows), emptied through HTTP DELETE (the path a client takes),
 * and the heap compared with the baseline taken before the fill.
 */

import { randomUUID } from "node:crypto";
import { Pool } from "undici";
import { startFakeServer } from "../../../fake-server/server.ts";
import { serveCalls } from "../worker.ts";
import { settledHeap } from "./settled-heap.ts";

const AGENT = "agent-a";
const CHANNEL = "web";
const KEY = "sk-fake-a";
const HEADERS = { authorization: `Bearer ${KEY}`, "content-type": "application/json", accept: "application/json" };

/**
 * A distinct text of `length` characters held as a flat string, as JSON.parse leaves a
 * request's message (a concatenation would be measured as a rope of its parts).
 */
function flatText(label: string, length: number): string {
  const text = `${label} ${"lorem ipsum dolor sit amet ".repeat(Math.ceil(length / 27))}`.slice(0, length);
  return JSON.parse(JSON.stringify(text)) as string;
}

export interface MemoryProbeInput {
  messages: number;
  conversations: number;
  textLength: number;
  /** Plain creates through HTTP, to price one whole exchange (messages and idempotency record). */
  creates: number;
}

async function send(pool: Pool, method: "GET" | "POST" | "DELETE", path: string, body?: string): Promise<number> {
  const headers = method === "POST" ? { ...HEADERS, "idempotency-key": randomUUID() } : HEADERS;
  const response = await pool.request({ method, path, headers, body });
  await response.body.dump();
  return response.statusCode;
}

/** Runs `task(i)` for i < count with at most `width` in flight. */
async function inParallel(count: number, width: number, task: (i: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < count) await task(next++);
    }),
  );
}

serveCalls({
  async measure(input: MemoryProbeInput) {
    const server = await startFakeServer({ port: 0, host: "127.0.0.1" });
    const { conversations: store } = server.app.internals;
    const pool = new Pool(server.url, { connections: 8 });
    try {
      // Warm-up: every route once, and the bounded request log filled to capacity, so the
      // baseline already holds what any running fake holds.
      const warm = await pool.request({
        method: "POST",
        path: `/v1/agents/${AGENT}/responses`,
        headers: { ...HEADERS, "idempotency-key": randomUUID() },
        body: JSON.stringify({ message: "warm-up" }),
      });
      const { conversation_id: warmId } = (await warm.body.json()) as { conversation_id: string };
      await send(pool, "GET", `/v1/agents/${AGENT}/conversations/${warmId}/messages`);
      await send(pool, "DELETE", `/v1/agents/${AGENT}/conversations/${warmId}`);
      await inParallel(server.app.internals.options.requestLogSize, 8, async () => {
        await send(pool, "GET", `/v1/agents/${AGENT}/conversations/${randomUUID()}/messages`);
      });

      const baseline = await settledHeap();
      const exchangesPer = Math.ceil(input.messages / input.conversations / 2);
      let ids: string[] = [];
      for (let c = 0; c < input.conversations; c++) {
        const conversation = store.open(AGENT, CHANNEL);
        ids.push(conversation.id);
        for (let e = 0; e < exchangesPer; e++) {
          store.appendExchange(
            conversation.id,
            flatText(`question ${c}.${e}`, input.textLength),
            flatText(`answer ${c}.${e}`, input.textLength),
            [],
          );
        }
      }
      const stored = store.stats().messages;
      const filled = await settledHeap();

      await inParallel(ids.length, 8, async (i) => {
        const status = await send(pool, "DELETE", `/v1/agents/${AGENT}/conversations/${ids[i]}`);
        if (status !== 204) throw new Error(`DELETE answered ${status}`);
      });
      ids = [];
      const remaining = store.stats();
      const emptied = await settledHeap();

      // One whole exchange through HTTP: two messages, a conversation and an idempotency record.
      const beforeCreates = emptied;
      const body = JSON.stringify({ message: flatText("How do I export my calendar?", input.textLength) });
      await inParallel(input.creates, 8, async () => {
        const status = await send(pool, "POST", `/v1/agents/${AGENT}/responses`, body);
        if (status !== 200) throw new Error(`create answered ${status}`);
      });
      const afterCreates = await settledHeap();

      return {
        baselineBytes: baseline,
        filledBytes: filled,
        emptiedBytes: emptied,
        storedMessages: stored,
        remainingAfterDelete: remaining,
        bytesPerMessage: (filled - baseline) / stored,
        emptiedVsBaseline: emptied / baseline,
        creates: input.creates,
        bytesPerCreate: (afterCreates - beforeCreates) / input.creates,
      };
    } finally {
      await pool.close();
      await server.close();
    }
  },
});
