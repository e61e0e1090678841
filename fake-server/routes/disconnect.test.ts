import { request } from "undici";
import { expect, test } from "vitest";
import { createResponse, listMessages, openStream, streamResponse } from "../test-support/client.ts";
import { completedOf, parseStream } from "../test-support/events.ts";
import { expectPage } from "../test-support/expect.ts";
import { fakeServer } from "../test-support/server.ts";
import { until } from "../test-support/until.ts";

test("a client that hangs up mid-stream: the exchange is stored once, its key replays it, no timer is left", async () => {
  // A minute between deltas: only the hang-up can let this exchange finish within the test.
  const fake = await fakeServer({ deltaDelayMs: 60_000 });
  const stream = await openStream(fake.url, { idempotencyKey: "k", body: { message: "sync between devices" } });
  const created = await stream.next();
  expect(created?.event).toBe("response.created");
  const conversationId = (JSON.parse(created?.data ?? "{}") as { conversation_id: string }).conversation_id;
  expect(fake.app.internals.timers.active).toBe(1);

  stream.abort();
  await fake.app.internals.inFlight.whenIdle();
  expect(fake.app.internals.timers.active).toBe(0);
  expect(expectPage(await listMessages(fake.url, conversationId)).total).toBe(2);

  const replay = await streamResponse(fake.url, {
    idempotencyKey: "k",
    body: { message: "sync between devices" },
    headers: { "x-fake-fault": "delta-delay=0" },
  });
  expect(replay.headers["idempotent-replayed"]).toBe("true");
  const { response } = completedOf(parseStream(replay.events));
  expect(response.conversation_id).toBe(conversationId);
  expect(response.citations.map((c) => c.document_id)).toContain("doc-sync");
  expect(expectPage(await listMessages(fake.url, conversationId)).total).toBe(2);
});

test("a client that hangs up during a plain create's delay still gets the exchange stored", async () => {
  const fake = await fakeServer();
  const abort = new AbortController();
  const pending = request(`${fake.url}/v1/agents/agent-a/responses`, {
    method: "POST",
    headers: {
      authorization: "Bearer sk-fake-a",
      "content-type": "application/json",
      "idempotency-key": "k",
      "x-fake-fault": "first-event-delay=60000",
    },
    body: JSON.stringify({ message: "How do I reset my password?" }),
    signal: abort.signal,
  });
  await until(() => fake.app.internals.timers.active === 1, "the request to pause");
  abort.abort();
  await expect(pending).rejects.toThrow();
  await until(() => fake.app.internals.inFlight.size === 0, "the exchange to settle");
  expect(fake.app.internals.timers.active).toBe(0);
  expect(fake.app.internals.snapshot()).toMatchObject({ conversations: 1, messages: 2 });
  const replay = await createResponse(fake.url, { idempotencyKey: "k" });
  expect(replay.headers["idempotent-replayed"]).toBe("true");
});

test("closing the server ends running streams and leaves no timer behind", async () => {
  const fake = await fakeServer({ deltaDelayMs: 60_000 });
  const stream = await openStream(fake.url);
  expect((await stream.next())?.event).toBe("response.created");
  await fake.close();
  expect(fake.app.internals.timers.active).toBe(0);
  expect(fake.app.internals.inFlight.size).toBe(0);
  await expect(stream.next()).rejects.toThrow();
});
