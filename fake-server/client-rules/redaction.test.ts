import { expect, test } from "vitest";
import { call, createResponse, streamResponse } from "../test-support/client.ts";
import { fakeServer } from "../test-support/server.ts";
import { bodyExcerpt, truncate } from "./render.ts";

const SECRET = "sk-live-9f8e7d6c5b4a-SECRET";

test("no output shows more of a key than its first 6 characters, whatever the header looked like", async () => {
  const fake = await fakeServer({ keys: [`${SECRET}=agent-a`] });
  await createResponse(fake.url, { key: SECRET, idempotencyKey: null, contentType: "text/plain" });
  await streamResponse(fake.url, { key: SECRET, headers: { accept: "*/*" } });
  await call(fake.url, "GET", "/v1/nowhere", { authorization: SECRET });
  await call(fake.url, "GET", "/v1/nowhere", { authorization: `Token ${SECRET}` });
  const violations = fake.clientViolations();
  expect(violations.map((v) => v.requirement)).toEqual(["CLIENT-2", "CLIENT-6", "CLIENT-5", "CLIENT-1", "CLIENT-1"]);
  expect(new Set(violations.map((v) => v.apiKey))).toEqual(new Set(["sk-liv…"]));
  const outputs = [
    JSON.stringify(violations),
    JSON.stringify(fake.clientViolationCounts()),
    (await call(fake.url, "GET", "/__fake/client-violations", {})).text,
    (await call(fake.url, "GET", "/__fake/requests", {})).text,
  ];
  for (const output of outputs) expect(output).not.toContain("9f8e7d");
});

test("bodies are cut to an excerpt of bodyExcerptChars characters", async () => {
  const fake = await fakeServer({ clientRules: { bodyExcerptChars: 40 } });
  const long = "x".repeat(5_000);
  await createResponse(fake.url, { idempotencyKey: "k", body: { message: long } });
  await createResponse(fake.url, { idempotencyKey: "k", body: { message: `${long}y` } });
  const [violation] = fake.clientViolations();
  for (const request of violation?.requests ?? []) {
    expect(request.bodyExcerpt).toHaveLength(41);
    expect(request.bodyExcerpt?.endsWith("…")).toBe(true);
  }
});

test("an excerpt never splits a character in two, and a deeply nested body does not overflow the stack", () => {
  expect(truncate("ab😀cd", 3)).toBe("ab😀…");
  let deep: unknown = "end";
  for (let i = 0; i < 100_000; i++) deep = [deep];
  expect(bodyExcerpt({ message: "hi", extra: deep }, 30)).toBe('{"extra":[[[[[[[[[[[[[[[[[[[[[…');
});
