import { Pool } from "undici";
import { expect, onTestFinished, test } from "vitest";
import { createResponse, listMessages, openStream, streamResponse } from "../test-support/client.ts";
import { completedOf, parseStream } from "../test-support/events.ts";
import { expectResult } from "../test-support/expect.ts";
import { fakeServer } from "../test-support/server.ts";
import { fakeWithClock, settled } from "../test-support/client-rules.ts";

// Traffic a correct client produces that looks like a broken rule to a careless observer.

const HEADERS = { authorization: "Bearer sk-fake-a", "content-type": "application/json" };

test("CLIENT-3 CLIENT-7: retries after 409 idempotency_key_in_use that wait for its Retry-After are not recorded", async () => {
  const { fake, clock } = await fakeWithClock();
  const body = { message: "How do I share a list?" };
  const running = await openStream(fake.url, {
    idempotencyKey: "op-1",
    body,
    headers: { "x-fake-fault": "delta-delay=60000" },
  });
  expect((await running.next())?.event).toBe("response.created");
  for (let i = 0; i < 8; i++) {
    const busy = await createResponse(fake.url, { idempotencyKey: "op-1", body });
    expect(busy.status).toBe(409);
    expect(busy.headers["retry-after"]).toBe("1");
    clock.advance(1_000);
  }
  running.abort();
  await settled(fake);
  const replay = await createResponse(fake.url, { idempotencyKey: "op-1", body });
  expect(replay.headers["idempotent-replayed"]).toBe("true");
  expect(fake.clientViolations()).toEqual([]);
});

test("CLIENT-1..7: distinct operations over one keep-alive connection are not recorded", async () => {
  const fake = await fakeServer();
  const pool = new Pool(fake.url, { connections: 1, pipelining: 1 });
  onTestFinished(() => pool.close());
  const conversationIds: string[] = [];
  for (let i = 0; i < 6; i++) {
    const response = await pool.request({
      method: "POST",
      path: "/v1/agents/agent-a/responses",
      headers: { ...HEADERS, "idempotency-key": `op-${i}` },
      body: JSON.stringify({ message: "How do I reset my password?" }),
    });
    expect(response.statusCode).toBe(200);
    conversationIds.push(((await response.body.json()) as { conversation_id: string }).conversation_id);
  }
  for (const id of conversationIds) {
    const response = await pool.request({
      method: "GET",
      path: `/v1/agents/agent-a/conversations/${id}/messages`,
      headers: { authorization: HEADERS.authorization },
    });
    expect(response.statusCode).toBe(200);
    await response.body.dump();
  }
  expect(pool.stats.connected).toBe(1);
  expect(fake.clientViolations()).toEqual([]);
});

test("CLIENT-1..7: concurrent distinct operations, some with the same message, are not recorded", async () => {
  const fake = await fakeServer();
  const messages = ["How do reminders work?", "How do I export my data?"];
  const streams = Array.from({ length: 10 }, (_, i) =>
    streamResponse(fake.url, { idempotencyKey: `s-${i}`, body: { message: messages[i % 2] } }),
  );
  const creates = Array.from({ length: 10 }, (_, i) =>
    createResponse(fake.url, { idempotencyKey: `c-${i}`, body: { message: messages[i % 2] } }),
  );
  for (const stream of await Promise.all(streams)) completedOf(parseStream(stream.events));
  for (const create of await Promise.all(creates)) expectResult(create);
  expect(fake.clientViolations()).toEqual([]);
});

test("CLIENT-4: the same message as two logical operations far apart in time, even after a failed stream, is not recorded", async () => {
  const { fake, clock } = await fakeWithClock();
  const body = { message: "How do I cancel my plan?" };
  await streamResponse(fake.url, { idempotencyKey: "monday", body, headers: { "x-fake-fault": "error-after=2" } });
  clock.advance(60 * 60 * 1000);
  completedOf(parseStream((await streamResponse(fake.url, { idempotencyKey: "tuesday", body })).events));
  clock.advance(60 * 60 * 1000);
  expectResult(await createResponse(fake.url, { idempotencyKey: "wednesday", body }));
  expect(fake.clientViolations()).toEqual([]);
});

test("CLIENT-4 CLIENT-7: a dropped stream retried once at once with its key, then listed, is not recorded", async () => {
  const fake = await fakeServer();
  const body = { message: "sync between devices" };
  await expect(
    streamResponse(fake.url, { idempotencyKey: "op", body, headers: { "x-fake-fault": "drop-after=2" } }),
  ).rejects.toThrow();
  await settled(fake);
  const { response } = completedOf(
    parseStream((await streamResponse(fake.url, { idempotencyKey: "op", body })).events),
  );
  expect((await listMessages(fake.url, response.conversation_id)).status).toBe(200);
  expect(fake.clientViolations()).toEqual([]);
});
