import { expect, test } from "vitest";
import { createResponse, streamResponse } from "../test-support/client.ts";
import { fakeServer } from "../test-support/server.ts";
import { onlyViolation } from "../test-support/client-rules.ts";

test.for([
  ["no Content-Type", null],
  ["text/plain", "text/plain"],
  ["a form", "application/x-www-form-urlencoded"],
  ["a JSON-like subtype", "application/json-patch+json"],
] as const)("CLIENT-6: a create with %s is recorded", async ([, contentType]) => {
  const fake = await fakeServer();
  const reply = await createResponse(fake.url, { contentType });
  expect(reply.status).toBe(415);
  const violation = onlyViolation(fake, "CLIENT-6");
  expect(violation.message).toContain("Content-Type: application/json");
  expect(violation.requests[0]?.status).toBe(415);
});

test("CLIENT-6: a stream without Content-Type is recorded", async () => {
  const fake = await fakeServer();
  await streamResponse(fake.url, { contentType: null });
  expect(onlyViolation(fake, "CLIENT-6").requests[0]?.path).toBe("/v1/agents/agent-a/responses/stream");
});

test.for([["application/json"], ["application/json; charset=utf-8"], ["Application/JSON"]] as const)(
  "CLIENT-6: %s is not recorded",
  async ([contentType]) => {
    const fake = await fakeServer();
    expect((await createResponse(fake.url, { contentType })).status).toBe(200);
    expect(fake.clientViolations()).toEqual([]);
  },
);
