/**
 * 500 clients hang up in the middle of their streams. Afterwards the fake holds no timer,
 * no running handler and no socket (its own bookkeeping, and the process's active handles
 * back to where they were), and every exchange is stored exactly once and replays under
 * its key.
 */

import { randomUUID } from "node:crypto";
import { createParser } from "eventsource-parser";
import { Pool } from "undici";
import { expect, onTestFinished, test } from "vitest";
import { CreatedEvent, ResponseResult } from "../../schemas/index.ts";
import { fakeServer } from "../test-support/server.ts";
import { until } from "../test-support/until.ts";

const CLIENTS = 500;
const HEADERS = { authorization: "Bearer sk-fake-a", "content-type": "application/json" };

/** How many active handles of each kind the process has (sockets, timers, ...). */
function activeResources(): Map<string, number> {
  const counts = new Map<string, number>();
  for (const kind of process.getActiveResourcesInfo()) counts.set(kind, (counts.get(kind) ?? 0) + 1);
  return counts;
}

interface Started {
  key: string;
  body: string;
  conversationId: string;
  hangUp: () => void;
}

/** Opens a stream and reads until response.created, then leaves it open for the caller to abandon. */
async function startStream(pool: Pool, i: number): Promise<Started> {
  const key = `abandoned-${i}-${randomUUID()}`;
  const body = JSON.stringify({ message: `How do I export my calendar? (${i})` });
  const controller = new AbortController();
  const response = await pool.request({
    method: "POST",
    path: "/v1/agents/agent-a/responses/stream",
    headers: { ...HEADERS, accept: "text/event-stream", "idempotency-key": key },
    body,
    signal: controller.signal,
  });
  expect(response.statusCode).toBe(200);
  let created: string | undefined;
  const parser = createParser({ onEvent: (event) => (created ??= event.data) });
  const decoder = new TextDecoder();
  // Read by hand: leaving a for-await loop early would destroy the body, and the point is
  // to keep the stream open until the hang-up below.
  const chunks = (response.body as AsyncIterable<Buffer>)[Symbol.asyncIterator]();
  while (created === undefined) {
    const { done, value } = await chunks.next();
    if (done) break;
    parser.feed(decoder.decode(value, { stream: true }));
  }
  const { conversation_id } = CreatedEvent.parse(JSON.parse(created ?? "null"));
  return {
    key,
    body,
    conversationId: conversation_id,
    hangUp: () => {
      controller.abort();
      response.body.destroy();
    },
  };
}

test(
  `${CLIENTS} clients disconnecting mid-stream leak no timer or socket; each exchange is stored once and replays`,
  { timeout: 60_000 },
  async () => {
    // A minute between deltas: only the hang-ups can let these exchanges finish.
    const fake = await fakeServer({ deltaDelayMs: 60_000 });
    const warnings: string[] = [];
    const onWarning = (warning: Error) => warnings.push(`${warning.name}: ${warning.message}`);
    process.on("warning", onWarning);
    onTestFinished(() => void process.off("warning", onWarning));
    const { internals } = fake.app;
    const baseline = activeResources();
    const pool = new Pool(fake.url, { connections: CLIENTS, pipelining: 1 });
    onTestFinished(() => pool.destroy());

    const streams = await Promise.all(Array.from({ length: CLIENTS }, (_, i) => startStream(pool, i)));
    // Every stream is paused before its first delta, each holding one timer.
    await until(() => internals.timers.active === CLIENTS, "every stream to pause before its first delta");
    expect(internals.inFlight.size).toBe(CLIENTS);

    for (const stream of streams) stream.hangUp();
    await until(() => internals.inFlight.size === 0, "every abandoned exchange to settle");
    expect(internals.timers.active).toBe(0);
    await pool.close();
    const sockets = (counts: Map<string, number>) => counts.get("TCPSocketWrap") ?? 0;
    const timers = (counts: Map<string, number>) => counts.get("Timeout") ?? 0;
    await until(
      () => sockets(activeResources()) <= sockets(baseline),
      "both ends of every connection to close",
      100_000,
      10_000,
    );
    expect(timers(activeResources())).toBeLessThanOrEqual(timers(baseline));

    // Stored once each: one conversation and one exchange per abandoned stream.
    expect(internals.snapshot()).toEqual({
      conversations: CLIENTS,
      messages: 2 * CLIENTS,
      idempotencyRecords: CLIENTS,
    });
    for (const { conversationId } of streams) {
      expect(internals.conversations.find(conversationId, "agent-a", "web")?.messages).toHaveLength(2);
    }

    // Each key replays its exchange, and replays consume nothing.
    const replays = new Pool(fake.url, { connections: 16, pipelining: 1 });
    onTestFinished(() => replays.destroy());
    const before = internals.snapshot();
    for (const { key, body, conversationId } of streams) {
      const response = await replays.request({
        method: "POST",
        path: "/v1/agents/agent-a/responses",
        headers: { ...HEADERS, "idempotency-key": key },
        body,
      });
      const text = await response.body.text();
      expect(response.statusCode, text).toBe(200);
      expect(response.headers["idempotent-replayed"]).toBe("true");
      expect(ResponseResult.parse(JSON.parse(text)).conversation_id).toBe(conversationId);
    }
    expect(internals.snapshot()).toEqual(before);
    await replays.close();
    // Hundreds of pauses at once are the fake's normal load, not a listener leak to warn about.
    expect(warnings).toEqual([]);
  },
);
