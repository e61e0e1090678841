import { expect, test } from "vitest";
import { Health, RequestLogPage } from "../request-log/schemas.ts";
import { call, createResponse, listMessages } from "../test-support/client.ts";
import { expectError, expectResult } from "../test-support/expect.ts";
import { fakeServer } from "../test-support/server.ts";

test("health needs no key and counts what the stores hold", async () => {
  const fake = await fakeServer();
  expectResult(await createResponse(fake.url));
  const health = Health.parse((await call(fake.url, "GET", "/__fake/health", {})).json);
  expect(health).toEqual({ status: "ok", conversations: 1, messages: 2, idempotency_records: 1 });
});

test("reset empties every store", async () => {
  const fake = await fakeServer();
  const { conversation_id } = expectResult(await createResponse(fake.url, { idempotencyKey: "k" }));
  const reply = await call(fake.url, "POST", "/__fake/reset", {});
  expect(reply.status).toBe(204);
  expect(fake.app.internals.snapshot()).toEqual({ conversations: 0, messages: 0, idempotencyRecords: 0 });
  expectError(await listMessages(fake.url, conversation_id), 404, "conversation_not_found");
  const again = await createResponse(fake.url, { idempotencyKey: "k" });
  expect(again.headers["idempotent-replayed"]).toBeUndefined();
  expect(RequestLogPage.parse((await call(fake.url, "GET", "/__fake/requests", {})).json).requests).toHaveLength(2);
});

test("the request log records /v1 requests with the key redacted, oldest first, and not its own", async () => {
  const fake = await fakeServer();
  await createResponse(fake.url);
  await listMessages(fake.url, crypto.randomUUID(), { key: "sk-secret-value" });
  await call(fake.url, "GET", "/__fake/health", {});
  await call(fake.url, "GET", "/v1/agents/agent-a/responses", {});
  const { requests } = RequestLogPage.parse((await call(fake.url, "GET", "/__fake/requests", {})).json);
  expect(requests.map((r) => [r.method, r.status, r.api_key])).toEqual([
    ["POST", 200, "sk-fak…"],
    ["GET", 401, "sk-sec…"],
    ["GET", 401, null],
  ]);
  expect(requests[0]?.path).toBe("/v1/agents/agent-a/responses");
  expect(JSON.stringify(requests)).not.toContain("sk-secret-value");
});

test("the request log is bounded, and limit returns the most recent entries", async () => {
  const fake = await fakeServer({ requestLogSize: 3 });
  for (let i = 0; i < 5; i++) await listMessages(fake.url, `id-${i}`);
  const all = RequestLogPage.parse((await call(fake.url, "GET", "/__fake/requests", {})).json).requests;
  expect(all.map((r) => r.path.split("/")[5])).toEqual(["id-2", "id-3", "id-4"]);
  const last = RequestLogPage.parse((await call(fake.url, "GET", "/__fake/requests?limit=1", {})).json).requests;
  expect(last.map((r) => r.path.split("/")[5])).toEqual(["id-4"]);
});

test.each(["0", "-1", "abc", "1.5", ""])("limit=%j is 400 invalid_request", async (limit) => {
  const fake = await fakeServer();
  expectError(await call(fake.url, "GET", `/__fake/requests?limit=${limit}`, {}), 400, "invalid_request");
});

test("an unknown /__fake path is 404 not_found", async () => {
  const fake = await fakeServer();
  expectError(await call(fake.url, "GET", "/__fake/nothing", {}), 404, "not_found");
});
