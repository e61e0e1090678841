import { expect, test } from "vitest";
import { createResponse, deleteConversation, streamResponse } from "../test-support/client.ts";
import { fakeServer } from "../test-support/server.ts";
import { onlyViolation } from "../test-support/client-rules.ts";

test("CLIENT-2: a create without Idempotency-Key is recorded, with the status the fake answered", async () => {
  const fake = await fakeServer();
  const reply = await createResponse(fake.url, { idempotencyKey: null, body: { message: "hello" } });
  expect(reply.status).toBe(400);
  const violation = onlyViolation(fake, "CLIENT-2");
  expect(violation.message).toContain("no Idempotency-Key");
  expect(violation.apiKey).toBe("sk-fak…");
  expect(violation.requests).toEqual([
    { method: "POST", path: "/v1/agents/agent-a/responses", at: expect.any(String), status: 400 },
  ]);
});

test("CLIENT-2: a stream with a blank Idempotency-Key is recorded", async () => {
  const fake = await fakeServer();
  await streamResponse(fake.url, { idempotencyKey: "   " });
  const violation = onlyViolation(fake, "CLIENT-2");
  expect(violation.message).toContain("blank Idempotency-Key");
  expect(violation.requests[0]?.path).toBe("/v1/agents/agent-a/responses/stream");
});

test("CLIENT-2: creates with a key, and deletes without one, are not recorded", async () => {
  const fake = await fakeServer();
  await createResponse(fake.url);
  await streamResponse(fake.url);
  await deleteConversation(fake.url, "0b7e2c3a-2f4e-4c1e-9d8a-5b6c7d8e9f01");
  expect(fake.clientViolations()).toEqual([]);
});
