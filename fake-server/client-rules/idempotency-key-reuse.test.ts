import { expect, test } from "vitest";
import { createResponse, openStream, streamResponse } from "../test-support/client.ts";
import { fakeServer } from "../test-support/server.ts";
import { onlyViolation, settled } from "../test-support/client-rules.ts";

test("CLIENT-3: one key sent with a second payload is recorded with both requests", async () => {
  const fake = await fakeServer();
  expect((await createResponse(fake.url, { idempotencyKey: "k", body: { message: "first question" } })).status).toBe(
    200,
  );
  expect((await createResponse(fake.url, { idempotencyKey: "k", body: { message: "second question" } })).status).toBe(
    409,
  );
  const violation = onlyViolation(fake, "CLIENT-3");
  expect(violation.requests).toEqual([
    expect.objectContaining({ idempotencyKey: "k", status: 200, bodyExcerpt: '{"message":"first question"}' }),
    expect.objectContaining({ idempotencyKey: "k", status: 409, bodyExcerpt: '{"message":"second question"}' }),
  ]);
});

test("CLIENT-3: a key reused across the two operations is recorded", async () => {
  const fake = await fakeServer();
  await streamResponse(fake.url, { idempotencyKey: "k", body: { message: "streamed" } });
  await createResponse(fake.url, { idempotencyKey: "k", body: { message: "plain" } });
  expect(onlyViolation(fake, "CLIENT-3").requests.map((r) => r.path)).toEqual([
    "/v1/agents/agent-a/responses/stream",
    "/v1/agents/agent-a/responses",
  ]);
});

test("CLIENT-3: a second payload while the first still runs under the key is recorded", async () => {
  const fake = await fakeServer();
  const running = await openStream(fake.url, {
    idempotencyKey: "k",
    body: { message: "slow" },
    headers: { "x-fake-fault": "delta-delay=60000" },
  });
  expect((await running.next())?.event).toBe("response.created");
  expect((await createResponse(fake.url, { idempotencyKey: "k", body: { message: "other" } })).status).toBe(409);
  running.abort();
  await settled(fake);
  const [first, second] = onlyViolation(fake, "CLIENT-3").requests;
  expect(first?.bodyExcerpt).toBe('{"message":"slow"}');
  expect(second?.status).toBe(409);
});

test("CLIENT-3: retries of the same payload, in any key order or spacing, are not recorded", async () => {
  const fake = await fakeServer();
  await createResponse(fake.url, { idempotencyKey: "k", rawBody: '{"message":"hi","metadata":{"a":"1","b":"2"}}' });
  await createResponse(fake.url, {
    idempotencyKey: "k",
    rawBody: '{ "metadata": {"b":"2", "a":"1"}, "message": "hi" }',
  });
  await streamResponse(fake.url, { idempotencyKey: "k", rawBody: '{"metadata":{"a":"1","b":"2"},"message":"hi"}' });
  expect(fake.clientViolations()).toEqual([]);
});

test("CLIENT-3: a corrected payload under a key whose first attempt was refused (invalid body, 429, unknown conversation) is not recorded", async () => {
  const fake = await fakeServer();
  expect((await createResponse(fake.url, { idempotencyKey: "a", body: { message: 42 } })).status).toBe(400);
  expect((await createResponse(fake.url, { idempotencyKey: "a", body: { message: "fixed" } })).status).toBe(200);
  expect(
    (
      await createResponse(fake.url, {
        idempotencyKey: "b",
        body: { message: "x" },
        headers: { "x-fake-fault": "status=429,retry-after=0" },
      })
    ).status,
  ).toBe(429);
  expect((await createResponse(fake.url, { idempotencyKey: "b", body: { message: "y" } })).status).toBe(200);
  const unknown = { message: "z", conversation_id: "0b7e2c3a-2f4e-4c1e-9d8a-5b6c7d8e9f01" };
  expect((await createResponse(fake.url, { idempotencyKey: "c", body: unknown })).status).toBe(404);
  expect((await createResponse(fake.url, { idempotencyKey: "c", body: { message: "z" } })).status).toBe(200);
  expect(fake.clientViolations()).toEqual([]);
});

test("CLIENT-3: the same key value under another agent or another API key is another key and not recorded", async () => {
  const fake = await fakeServer();
  await createResponse(fake.url, { idempotencyKey: "k", body: { message: "one" } });
  await createResponse(fake.url, { idempotencyKey: "k", agent: "agent-b", body: { message: "two" } });
  await createResponse(fake.url, { idempotencyKey: "k", key: "sk-fake-b", body: { message: "three" } });
  expect(fake.clientViolations()).toEqual([]);
});
