import { expect, test } from "vitest";
import { call, listMessages } from "../test-support/client.ts";
import { fakeServer } from "../test-support/server.ts";
import { onlyViolation } from "../test-support/client-rules.ts";

const SOME_CONVERSATION = "0b7e2c3a-2f4e-4c1e-9d8a-5b6c7d8e9f01";

test.for([
  ["no Authorization header", undefined],
  ["a Basic scheme", "Basic c2stZmFrZS1hOg=="],
  ["the bare key without Bearer", "sk-fake-a"],
  ["Bearer without a token", "Bearer"],
  ["Bearer with two words", "Bearer sk-fake-a extra"],
] as const)("CLIENT-1: a request with %s is recorded", async ([, authorization]) => {
  const fake = await fakeServer();
  const headers: Record<string, string> = authorization === undefined ? {} : { authorization };
  const reply = await call(fake.url, "GET", `/v1/agents/agent-a/conversations/${SOME_CONVERSATION}/messages`, headers);
  expect(reply.status).toBe(401);
  const violation = onlyViolation(fake, "CLIENT-1");
  expect(violation.spec).toContain("Authorization: Bearer <API_KEY>");
  expect(violation.requests).toEqual([
    expect.objectContaining({
      method: "GET",
      path: `/v1/agents/agent-a/conversations/${SOME_CONVERSATION}/messages`,
      status: 401,
    }),
  ]);
});

test("CLIENT-1: a bare configured key is filed under that key, shown redacted, and its value is never quoted", async () => {
  const fake = await fakeServer();
  await call(fake.url, "DELETE", `/v1/agents/agent-a/conversations/${SOME_CONVERSATION}`, {
    authorization: "sk-fake-a",
  });
  const violation = onlyViolation(fake, "CLIENT-1");
  expect(violation.apiKey).toBe("sk-fak…");
  expect(fake.clientViolations({ key: "sk-fake-a" })).toHaveLength(1);
  expect(JSON.stringify(violation)).not.toContain("sk-fake-a");
});

test("CLIENT-1: requests to unknown /v1 routes are judged too, /__fake ones are not", async () => {
  const fake = await fakeServer();
  await call(fake.url, "GET", "/v1/nowhere", {});
  await call(fake.url, "GET", "/__fake/health", {});
  expect(onlyViolation(fake, "CLIENT-1").requests.map((r) => r.path)).toEqual(["/v1/nowhere"]);
});

test.for([["Bearer sk-fake-a"], ["bearer sk-fake-a"], ["Bearer unknown-key"]] as const)(
  "CLIENT-1: %s is well-formed and not recorded (an unknown key is a 401, not a broken rule)",
  async ([authorization]) => {
    const fake = await fakeServer();
    await listMessages(fake.url, SOME_CONVERSATION, { key: null, headers: { authorization } });
    expect(fake.clientViolations()).toEqual([]);
  },
);
