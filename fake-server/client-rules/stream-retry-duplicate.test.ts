import { expect, test } from "vitest";
import { createResponse, openStream, streamResponse } from "../test-support/client.ts";
import { completedOf, parseStream } from "../test-support/events.ts";
import { fakeWithClock, onlyViolation, settled } from "../test-support/client-rules.ts";

const QUESTION = { message: "How do I export my data?" };

test("CLIENT-4: a stream that ended in an error event, re-sent at once under a new key, is recorded with both requests", async () => {
  const { fake } = await fakeWithClock();
  const failed = await streamResponse(fake.url, {
    idempotencyKey: "first",
    body: QUESTION,
    headers: { "x-fake-fault": "error-after=1" },
  });
  expect(parseStream(failed.events).terminal.type).toBe("error");
  await createResponse(fake.url, { idempotencyKey: "second", body: QUESTION });
  const violation = onlyViolation(fake, "CLIENT-4");
  expect(violation.message).toContain("ended with an error event");
  expect(violation.requests).toEqual([
    expect.objectContaining({ path: "/v1/agents/agent-a/responses/stream", idempotencyKey: "first", status: 200 }),
    expect.objectContaining({ path: "/v1/agents/agent-a/responses", idempotencyKey: "second", status: 200 }),
  ]);
});

test("CLIENT-4: a dropped stream re-sent under a new key is recorded", async () => {
  const { fake } = await fakeWithClock();
  await expect(
    streamResponse(fake.url, { idempotencyKey: "first", body: QUESTION, headers: { "x-fake-fault": "drop-after=1" } }),
  ).rejects.toThrow();
  await settled(fake);
  await streamResponse(fake.url, { idempotencyKey: "second", body: QUESTION });
  expect(onlyViolation(fake, "CLIENT-4").message).toContain("was cut before its terminal event");
});

test("CLIENT-4: a stream the client hung up on, re-sent under a new key, is recorded", async () => {
  const { fake } = await fakeWithClock();
  const stream = await openStream(fake.url, {
    idempotencyKey: "first",
    body: QUESTION,
    headers: { "x-fake-fault": "delta-delay=60000" },
  });
  expect((await stream.next())?.event).toBe("response.created");
  stream.abort();
  await settled(fake);
  await streamResponse(fake.url, { idempotencyKey: "second", body: QUESTION });
  expect(onlyViolation(fake, "CLIENT-4").requests.map((r) => r.idempotencyKey)).toEqual(["first", "second"]);
});

test("CLIENT-4: a dropped stream retried with its own key is not recorded, and the retry gets the whole answer", async () => {
  const { fake } = await fakeWithClock();
  await expect(
    streamResponse(fake.url, { idempotencyKey: "first", body: QUESTION, headers: { "x-fake-fault": "drop-after=1" } }),
  ).rejects.toThrow();
  await settled(fake);
  const retry = await streamResponse(fake.url, { idempotencyKey: "first", body: QUESTION });
  expect(retry.headers["idempotent-replayed"]).toBe("true");
  completedOf(parseStream(retry.events));
  expect(fake.clientViolations()).toEqual([]);
});

test("CLIENT-4: the same message sent again as a second operation after a completed stream is not recorded", async () => {
  const { fake } = await fakeWithClock();
  await streamResponse(fake.url, { idempotencyKey: "first", body: QUESTION });
  await streamResponse(fake.url, { idempotencyKey: "second", body: QUESTION });
  expect(fake.clientViolations()).toEqual([]);
});

test("CLIENT-4: after a failed stream, the same message sent deliberately later than the window is not recorded", async () => {
  const { fake, clock } = await fakeWithClock();
  await streamResponse(fake.url, {
    idempotencyKey: "first",
    body: QUESTION,
    headers: { "x-fake-fault": "error-after=0" },
  });
  clock.advance(fake.app.internals.clientRules.options.duplicateWindowMs + 1);
  await createResponse(fake.url, { idempotencyKey: "second", body: QUESTION });
  expect(fake.clientViolations()).toEqual([]);
});

test("CLIENT-4: after a failed stream, another message, or the same one for another conversation, is not recorded", async () => {
  const { fake } = await fakeWithClock();
  const failed = parseStream(
    (
      await streamResponse(fake.url, {
        idempotencyKey: "first",
        body: QUESTION,
        headers: { "x-fake-fault": "error-after=0" },
      })
    ).events,
  );
  await createResponse(fake.url, { idempotencyKey: "second", body: { message: "How do reminders work?" } });
  await createResponse(fake.url, {
    idempotencyKey: "third",
    body: { ...QUESTION, conversation_id: failed.created.conversation_id },
  });
  expect(fake.clientViolations()).toEqual([]);
});

test("CLIENT-4: the same message sent as another operation while the stream was still running is not recorded", async () => {
  const { fake } = await fakeWithClock();
  const stream = await openStream(fake.url, {
    idempotencyKey: "first",
    body: QUESTION,
    headers: { "x-fake-fault": "delta-delay=60000" },
  });
  expect((await stream.next())?.event).toBe("response.created");
  await createResponse(fake.url, { idempotencyKey: "second", body: QUESTION });
  stream.abort();
  await settled(fake);
  expect(fake.clientViolations()).toEqual([]);
});
