import { expect, test } from "vitest";
import {
  createResponse,
  deleteConversation,
  listMessages,
  openStream,
  streamResponse,
} from "../test-support/client.ts";
import { completedOf, parseStream } from "../test-support/events.ts";
import { expectError, expectPage, expectResult } from "../test-support/expect.ts";
import { fakeServer } from "../test-support/server.ts";
import { until } from "../test-support/until.ts";

const fault = (value: string) => ({ "x-fake-fault": value });

test("status=429 answers 429 rate_limited with Retry-After, and is not stored under its key", async () => {
  const fake = await fakeServer();
  const before = fake.app.internals.snapshot();
  const reply = await createResponse(fake.url, { idempotencyKey: "k", headers: fault("status=429") });
  expectError(reply, 429, "rate_limited");
  expect(reply.headers["retry-after"]).toBe("1");
  expect(fake.app.internals.snapshot()).toEqual(before);
  const retry = await createResponse(fake.url, { idempotencyKey: "k" });
  expectResult(retry);
  expect(retry.headers["idempotent-replayed"]).toBeUndefined();
});

test("status=503 with retry-after on the stream is a plain JSON 503, never an event stream", async () => {
  const fake = await fakeServer();
  const reply = await streamResponse(fake.url, { headers: fault("status=503,retry-after=30") });
  expectError(reply, 503, "service_unavailable");
  expect(reply.headers["retry-after"]).toBe("30");
  expect(reply.events).toEqual([]);
});

test("status=500 works on list and delete too, and the conversation is untouched", async () => {
  const fake = await fakeServer();
  const { conversation_id } = expectResult(await createResponse(fake.url));
  const listed = await listMessages(fake.url, conversation_id, { headers: fault("status=500") });
  expectError(listed, 500, "internal_error");
  expect(listed.headers["retry-after"]).toBeUndefined();
  expectError(
    await deleteConversation(fake.url, conversation_id, { headers: fault("status=500") }),
    500,
    "internal_error",
  );
  expect(expectPage(await listMessages(fake.url, conversation_id)).total).toBe(2);
});

test("a malformed X-Fake-Fault is a 400 naming the item, on every endpoint", async () => {
  const fake = await fakeServer();
  const { conversation_id } = expectResult(await createResponse(fake.url));
  const before = fake.app.internals.snapshot();
  const headers = fault("delta-delay=fast");
  for (const reply of [
    await createResponse(fake.url, { headers }),
    await streamResponse(fake.url, { headers }),
    await listMessages(fake.url, conversation_id, { headers }),
    await deleteConversation(fake.url, conversation_id, { headers }),
  ]) {
    expect(expectError(reply, 400, "invalid_request").error.message).toContain("delta-delay=fast");
  }
  expect(fake.app.internals.snapshot()).toEqual(before);
});

test("with faults disabled the header is refused with a clear message", async () => {
  const fake = await fakeServer({ faults: false });
  const reply = await createResponse(fake.url, { headers: fault("delta-delay=1") });
  expect(expectError(reply, 400, "invalid_request").error.message).toContain("fault injection is disabled");
  expectResult(await createResponse(fake.url));
});

test("error-after=2 ends the stream with agent_failed after two deltas and appends nothing", async () => {
  const fake = await fakeServer();
  const reply = await streamResponse(fake.url, { idempotencyKey: "k", headers: fault("error-after=2") });
  const stream = parseStream(reply.events);
  expect(stream.deltas).toHaveLength(2);
  expect(stream.terminal).toMatchObject({ type: "error", code: "agent_failed" });
  // The conversation announced in response.created exists, without the failed exchange.
  const page = expectPage(await listMessages(fake.url, stream.created.conversation_id));
  expect(page.total).toBe(0);
  expect(fake.app.internals.snapshot().messages).toBe(0);
});

test("a failed stream's key replays the same failure, on both operations, without running again", async () => {
  const fake = await fakeServer();
  const first = await streamResponse(fake.url, { idempotencyKey: "k", headers: fault("error-after=1") });
  const replay = await streamResponse(fake.url, { idempotencyKey: "k" });
  expect(replay.headers["idempotent-replayed"]).toBe("true");
  expect(replay.events).toEqual(first.events);
  const plain = await createResponse(fake.url, { idempotencyKey: "k" });
  expectError(plain, 502, "agent_failed");
  expect(plain.headers["idempotent-replayed"]).toBe("true");
  expect(fake.app.internals.snapshot().messages).toBe(0);
});

test("error-after=0 fails before any delta; error-after beyond the answer fails after all of them", async () => {
  const fake = await fakeServer();
  const none = parseStream((await streamResponse(fake.url, { headers: fault("error-after=0") })).events);
  expect(none.deltas).toEqual([]);
  expect(none.terminal.type).toBe("error");
  const all = parseStream((await streamResponse(fake.url, { headers: fault("error-after=1000") })).events);
  expect(all.deltas.length).toBeGreaterThanOrEqual(3);
  expect(all.terminal.type).toBe("error");
});

test("drop-after=1 cuts the connection after one delta; the exchange is still stored and its key replays it", async () => {
  const fake = await fakeServer();
  const stream = await openStream(fake.url, { idempotencyKey: "k", headers: fault("drop-after=1") });
  const seen: string[] = [];
  try {
    for (let event = await stream.next(); event; event = await stream.next()) seen.push(event.event ?? "");
  } catch {
    // The fake destroyed the socket: undici reports the body as cut off.
  }
  expect(seen).toEqual(["response.created", "response.output_text.delta"]);
  await fake.app.internals.inFlight.whenIdle();
  const replay = completedOf(parseStream((await streamResponse(fake.url, { idempotencyKey: "k" })).events)).response;
  expect(expectPage(await listMessages(fake.url, replay.conversation_id)).total).toBe(2);
});

test("first-event-delay holds the key in flight: the same key meanwhile is 409 idempotency_key_in_use", async () => {
  const fake = await fakeServer();
  const slow = await openStream(fake.url, { idempotencyKey: "k", headers: fault("first-event-delay=60000") });
  await until(() => fake.app.internals.timers.active === 1, "the first request to pause");
  const busy = await createResponse(fake.url, { idempotencyKey: "k" });
  expectError(busy, 409, "idempotency_key_in_use");
  expect(busy.headers["retry-after"]).toBe("1");
  // The client hangs up: the exchange completes without waiting out the delay.
  slow.abort();
  await fake.app.internals.inFlight.whenIdle();
  const replay = await createResponse(fake.url, { idempotencyKey: "k" });
  expect(replay.headers["idempotent-replayed"]).toBe("true");
  expect(fake.app.internals.timers.active).toBe(0);
});
