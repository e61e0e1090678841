import { expect, test } from "vitest";
import { RequestLogPage } from "../request-log/schemas.ts";
import { call, createResponse, listMessages, openStream, streamResponse } from "../test-support/client.ts";
import { completedOf, parseStream } from "../test-support/events.ts";
import { expectError, expectPage, expectResult } from "../test-support/expect.ts";
import { fakeServer } from "../test-support/server.ts";

test("a stream is created, 3 to 8 deltas and completed, which reassemble to the answer", async () => {
  const fake = await fakeServer();
  const reply = await streamResponse(fake.url, { body: { message: "How do reminders work?" } });
  expect(reply.status).toBe(200);
  expect(reply.headers["content-type"]).toBe("text/event-stream; charset=utf-8");
  expect(reply.headers["cache-control"]).toBe("no-cache");
  expect(reply.text).toMatch(/^event: response\.created\ndata: \{.*\}\n\n/);
  const stream = parseStream(reply.events);
  const { response } = completedOf(stream);
  expect(stream.created.conversation_id).toBe(response.conversation_id);
  expect(stream.deltas.length).toBeGreaterThanOrEqual(3);
  expect(stream.deltas.length).toBeLessThanOrEqual(8);
  expect(stream.deltas.join("")).toBe(response.output_text);
  expect(response.citations.map((c) => c.document_id)).toContain("doc-reminders");
});

test("a streamed exchange belongs to its conversation and can be continued", async () => {
  const fake = await fakeServer();
  const first = completedOf(parseStream((await streamResponse(fake.url)).events)).response;
  const page = expectPage(await listMessages(fake.url, first.conversation_id));
  expect(page.items.map((m) => m.content)).toEqual(["How do I reset my password?", first.output_text]);
  const next = completedOf(
    parseStream(
      (
        await streamResponse(fake.url, {
          body: { message: "thanks", conversation_id: first.conversation_id },
        })
      ).events,
    ),
  ).response;
  expect(next.conversation_id).toBe(first.conversation_id);
  expect(expectPage(await listMessages(fake.url, first.conversation_id)).total).toBe(4);
});

test("plain and streamed answers to the same message are the same", async () => {
  const fake = await fakeServer();
  const plain = expectResult(await createResponse(fake.url, { body: { message: "cancel my plan" } }));
  const streamed = completedOf(
    parseStream((await streamResponse(fake.url, { body: { message: "cancel my plan" } })).events),
  );
  expect(streamed.response.output_text).toBe(plain.response);
  expect(streamed.response.citations).toEqual(plain.citations);
});

test("a stream request without Accept: text/event-stream is served, and the request log notes it", async () => {
  const fake = await fakeServer();
  const reply = await streamResponse(fake.url, { headers: { accept: "*/*" } });
  completedOf(parseStream(reply.events));
  const log = RequestLogPage.parse((await call(fake.url, "GET", "/__fake/requests", {})).json);
  expect(log.requests.at(-1)?.warnings.join(" ")).toContain("Accept: text/event-stream");
});

test("a stream replay re-emits the same events, marked Idempotent-Replayed, and consumes nothing", async () => {
  const fake = await fakeServer();
  const first = await streamResponse(fake.url, { idempotencyKey: "k" });
  const { response } = completedOf(parseStream(first.events));
  const replay = await streamResponse(fake.url, { idempotencyKey: "k" });
  expect(replay.headers["idempotent-replayed"]).toBe("true");
  expect(replay.events).toEqual(first.events);
  expect(expectPage(await listMessages(fake.url, response.conversation_id)).total).toBe(2);
});

test("one key works across both operations: each replays the other's result", async () => {
  const fake = await fakeServer();
  const plain = expectResult(await createResponse(fake.url, { idempotencyKey: "p" }));
  const asStream = completedOf(parseStream((await streamResponse(fake.url, { idempotencyKey: "p" })).events)).response;
  expect(asStream).toEqual({
    conversation_id: plain.conversation_id,
    output_text: plain.response,
    citations: plain.citations,
  });

  const streamed = completedOf(parseStream((await streamResponse(fake.url, { idempotencyKey: "s" })).events)).response;
  const asPlain = await createResponse(fake.url, { idempotencyKey: "s" });
  expect(asPlain.headers["idempotent-replayed"]).toBe("true");
  expect(expectResult(asPlain)).toEqual({
    conversation_id: streamed.conversation_id,
    response: streamed.output_text,
    citations: streamed.citations,
  });
  expect(fake.app.internals.snapshot().messages).toBe(4);
});

test("the same key with another payload on the stream is a plain 409, consuming nothing", async () => {
  const fake = await fakeServer();
  completedOf(parseStream((await streamResponse(fake.url, { idempotencyKey: "k", body: { message: "a" } })).events));
  const before = fake.app.internals.snapshot();
  const reply = await streamResponse(fake.url, { idempotencyKey: "k", body: { message: "b" } });
  expectError(reply, 409, "idempotency_key_reused");
  expect(reply.events).toEqual([]);
  expect(fake.app.internals.snapshot()).toEqual(before);
});

test("an agent the key does not grant is a plain 404 not_found", async () => {
  const fake = await fakeServer();
  expectError(await streamResponse(fake.url, { key: "sk-fake-b", agent: "agent-b" }), 404, "not_found");
});

test("events are written as they are produced: the first arrives while the rest are still pending", async () => {
  const fake = await fakeServer({ deltaDelayMs: 60_000 });
  const stream = await openStream(fake.url);
  // With a minute between events, receiving response.created proves it was not held back.
  const first = await stream.next();
  expect(first?.event).toBe("response.created");
  expect(fake.app.internals.timers.active).toBe(1);
  stream.abort();
  await fake.app.internals.inFlight.whenIdle();
});
