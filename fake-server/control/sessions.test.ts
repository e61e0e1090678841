import { expect, test } from "vitest";
import { RequestLogPage } from "../request-log/schemas.ts";
import { createResponse, listMessages } from "../test-support/client.ts";
import { expectError, expectResult } from "../test-support/expect.ts";
import { fakeServer } from "../test-support/server.ts";
import { control, inSession } from "../test-support/control-client.ts";

test("a conversation lives in its session: others, default included, do not find it", async () => {
  const fake = await fakeServer();
  const { conversation_id } = expectResult(await createResponse(fake.url, inSession("team-a")));
  expect((await listMessages(fake.url, conversation_id, inSession("team-a"))).status).toBe(200);
  expectError(await listMessages(fake.url, conversation_id, inSession("team-b")), 404, "conversation_not_found");
  expectError(await listMessages(fake.url, conversation_id), 404, "conversation_not_found");
});

test("idempotency records are per session: the same key and body is a fresh exchange in another session", async () => {
  const fake = await fakeServer();
  const first = await createResponse(fake.url, { idempotencyKey: "shared-key", ...inSession("a") });
  const other = await createResponse(fake.url, { idempotencyKey: "shared-key", ...inSession("b") });
  const replay = await createResponse(fake.url, { idempotencyKey: "shared-key", ...inSession("a") });
  expect(other.headers["idempotent-replayed"]).toBeUndefined();
  expect(expectResult(other).conversation_id).not.toBe(expectResult(first).conversation_id);
  expect(replay.headers["idempotent-replayed"]).toBe("true");
  expect(replay.text).toBe(first.text);
});

test("the request log, client violations and rules are per session", async () => {
  const fake = await fakeServer();
  await createResponse(fake.url, inSession("a"));
  await createResponse(fake.url, { idempotencyKey: null, ...inSession("b") }); // CLIENT-2 in b
  await control(fake.url, "POST", "/__fake/faults", { fault: "status=503" }, "b");

  const logOf = async (session?: string) =>
    RequestLogPage.parse((await control(fake.url, "GET", "/__fake/requests", undefined, session)).json).requests;
  expect((await logOf("a")).map((entry) => [entry.session, entry.status])).toEqual([["a", 200]]);
  expect((await logOf("b")).map((entry) => [entry.session, entry.status])).toEqual([["b", 400]]);
  expect(await logOf()).toEqual([]);

  expect(fake.clientViolations({ session: "a" })).toEqual([]);
  expect(fake.clientViolations({ session: "b" }).map((v) => v.requirement)).toEqual(["CLIENT-2"]);
  const overHttp = (await control(fake.url, "GET", "/__fake/client-violations", undefined, "b")).json as {
    violations: unknown[];
  };
  expect(overHttp.violations).toHaveLength(1);
  expect((await control(fake.url, "GET", "/__fake/client-violations")).json).toEqual({ counts: [], violations: [] });

  // b's fault rule does not touch a's requests.
  expect((await createResponse(fake.url, inSession("a"))).status).toBe(200);
  expect((await createResponse(fake.url, inSession("b"))).status).toBe(503);
});

test.each([
  ["empty", ""],
  ["too long", "x".repeat(65)],
  ["a slash", "a/b"],
  ["a space", "a b"],
  ["non-ASCII", "séance"],
])("a session name that is %s is 400 naming the header or the parameter, and nothing is stored", async (_, name) => {
  const fake = await fakeServer();
  const reply = await createResponse(fake.url, { headers: { "x-fake-session": name } });
  expect(expectError(reply, 400, "invalid_request").error.message).toContain("X-Fake-Session");
  const query = await control(fake.url, "GET", `/__fake/requests?session=${encodeURIComponent(name)}`);
  expect(expectError(query, 400, "invalid_request").error.message).toContain("session");
  expect(fake.app.internals.snapshot().conversations).toBe(0);
  expect(fake.sessions()).toEqual(["default"]);
});

test("reset with ?session empties that session alone; without it, every one", async () => {
  const fake = await fakeServer();
  const a = expectResult(await createResponse(fake.url, inSession("a"))).conversation_id;
  const b = expectResult(await createResponse(fake.url, inSession("b"))).conversation_id;
  expect((await control(fake.url, "POST", "/__fake/reset", undefined, "a")).status).toBe(204);
  expectError(await listMessages(fake.url, a, inSession("a")), 404, "conversation_not_found");
  expect((await listMessages(fake.url, b, inSession("b"))).status).toBe(200);
  expect((await control(fake.url, "POST", "/__fake/reset")).status).toBe(204);
  expectError(await listMessages(fake.url, b, inSession("b")), 404, "conversation_not_found");
});

test("past maxSessions the least recently used session goes, never default", async () => {
  const fake = await fakeServer({ maxSessions: 3 });
  const kept = expectResult(await createResponse(fake.url)).conversation_id;
  const old = expectResult(await createResponse(fake.url, inSession("old"))).conversation_id;
  await createResponse(fake.url, inSession("recent"));
  await createResponse(fake.url, inSession("newest"));
  expect(fake.sessions().sort()).toEqual(["default", "newest", "recent"]);
  expectError(await listMessages(fake.url, old, inSession("old")), 404, "conversation_not_found");
  expect((await listMessages(fake.url, kept)).status).toBe(200);
});
