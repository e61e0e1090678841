import { expect, onTestFinished, test } from "vitest";
import { ClientViolationReport } from "../../schemas/index.ts";
import { RequestLogPage } from "../request-log/schemas.ts";
import { createFakeServer } from "../index.ts";
import { call, createResponse, streamResponse } from "../test-support/client.ts";
import { fakeServer } from "../test-support/server.ts";

async function report(url: string, query = ""): Promise<ClientViolationReport> {
  const reply = await call(url, "GET", `/__fake/client-violations${query}`, {});
  expect(reply.status).toBe(200);
  return ClientViolationReport.parse(reply.json);
}

/** One CLIENT-2 under each default key, and one CLIENT-1 with no key at all. */
async function provoke(url: string): Promise<void> {
  await createResponse(url, { key: "sk-fake-a", idempotencyKey: null });
  await createResponse(url, { key: "sk-fake-b", idempotencyKey: null });
  await call(url, "GET", "/v1/nowhere", {});
}

test("GET /__fake/client-violations lists every violation oldest first, with counts in catalog order", async () => {
  const fake = await fakeServer();
  await provoke(fake.url);
  const all = await report(fake.url);
  expect(all.violations.map((v) => [v.requirement, v.apiKey])).toEqual([
    ["CLIENT-2", "sk-fak…"],
    ["CLIENT-2", "sk-fak…"],
    ["CLIENT-1", null],
  ]);
  expect(all.counts.map((c) => [c.requirement, c.count])).toEqual([
    ["CLIENT-1", 1],
    ["CLIENT-2", 2],
  ]);
  expect(all).toEqual({ counts: fake.clientViolationCounts(), violations: fake.clientViolations() });
});

test.for([
  ["a full key matches that key only", "?key=sk-fake-b", 1],
  ["a redacted prefix matches every key that starts with it", `?key=${encodeURIComponent("sk-fak…")}`, 2],
  ["a prefix may end in three dots", "?key=sk-fake-a...", 1],
  ["an unknown key matches nothing", "?key=sk-other", 0],
  ["a requirement filters by requirement", "?requirement=CLIENT-1", 1],
  ["both filters combine", "?key=sk-fake-a&requirement=CLIENT-1", 0],
] as const)("the filter: %s", async ([, query, expected]) => {
  const fake = await fakeServer();
  await provoke(fake.url);
  const filtered = await report(fake.url, query);
  expect(filtered.violations).toHaveLength(expected);
  expect(filtered.counts.reduce((sum, c) => sum + c.count, 0)).toBe(expected);
});

test.for([["?requirement=AUTH-1"], ["?key="], ["?key=a&key=b"]] as const)(
  "GET /__fake/client-violations%s is 400",
  async ([query]) => {
    const fake = await fakeServer();
    const reply = await call(fake.url, "GET", `/__fake/client-violations${query}`, {});
    expect(reply.status).toBe(400);
    expect(reply.json).toMatchObject({ error: { code: "invalid_request" } });
  },
);

test("POST /__fake/reset and reset() both clear violations and counts", async () => {
  const fake = await fakeServer();
  await provoke(fake.url);
  expect((await call(fake.url, "POST", "/__fake/reset", {})).status).toBe(204);
  expect(await report(fake.url)).toEqual({ counts: [], violations: [] });
  await provoke(fake.url);
  fake.reset();
  expect(fake.clientViolations()).toEqual([]);
  expect(fake.clientViolationCounts()).toEqual([]);
});

test("the object createFakeServer returns reads violations, filtered the same way", async () => {
  const fake = await createFakeServer({ port: 0 });
  onTestFinished(() => fake.close());
  await streamResponse(fake.url, { headers: { accept: "application/json" } });
  expect(fake.clientViolations().map((v) => v.requirement)).toEqual(["CLIENT-5"]);
  expect(fake.clientViolations({ key: "sk-fake-b" })).toEqual([]);
  expect(fake.clientViolationCounts({ requirement: "CLIENT-5" })).toEqual([
    { requirement: "CLIENT-5", title: "stream request without Accept: text/event-stream", count: 1 },
  ]);
});

test("every finding also shows as a warning of its request in the request log", async () => {
  const fake = await fakeServer();
  await createResponse(fake.url, { idempotencyKey: null, contentType: "text/plain" });
  const log = RequestLogPage.parse((await call(fake.url, "GET", "/__fake/requests", {})).json);
  expect(log.requests.at(-1)?.warnings.map((w) => w.slice(0, w.indexOf(":")))).toEqual(["CLIENT-2", "CLIENT-6"]);
});

test("a violation shows a request's status once it is answered, even if recorded before", async () => {
  const fake = await fakeServer();
  await streamResponse(fake.url, { headers: { accept: "*/*" } });
  const [violation] = fake.clientViolations();
  expect(violation?.requests[0]?.status).toBe(200);
  expect(violation?.at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
});
