import { afterEach, expect, test } from "vitest";
import { call, createResponse, listMessages, streamResponse } from "../test-support/client.ts";
import { expectError, expectPage, expectResult } from "../test-support/expect.ts";
import { fakeServer } from "../test-support/server.ts";

const HOSTILE = ["__proto__", "constructor", "prototype"] as const;

afterEach(() => {
  // Whatever a test sent, no object anywhere may have gained a property.
  expect(Object.keys(Object.prototype)).toEqual([]);
  expect(({} as Record<string, unknown>)["polluted"]).toBeUndefined();
});

test("__proto__, constructor and prototype metadata keys are accepted as plain data", async () => {
  const fake = await fakeServer();
  const rawBody = '{"message":"hi","metadata":{"__proto__":{"polluted":"yes"}}}';
  // A nested value under __proto__ is still nested metadata: refused, not merged into a prototype.
  expectError(await createResponse(fake.url, { rawBody }), 400, "invalid_metadata");
  const ok = '{"message":"hi","metadata":{"__proto__":"x","constructor":"y","prototype":"z"}}';
  expectResult(await createResponse(fake.url, { rawBody: ok }));
});

test("hostile keys at the top of the body are unknown fields and ignored", async () => {
  const fake = await fakeServer();
  const rawBody = '{"message":"hi","__proto__":{"polluted":"yes"},"constructor":{"prototype":{"polluted":"yes"}}}';
  expectResult(await createResponse(fake.url, { rawBody }));
  // They are part of the payload, though: the same key with them removed is another payload.
  const reply = await createResponse(fake.url, { idempotencyKey: "k", rawBody });
  expectResult(reply);
  expectError(
    await createResponse(fake.url, { idempotencyKey: "k", body: { message: "hi" } }),
    409,
    "idempotency_key_reused",
  );
});

test.each(HOSTILE)("%s as an Idempotency-Key is an ordinary key", async (key) => {
  const fake = await fakeServer();
  const first = await createResponse(fake.url, { idempotencyKey: key });
  expectResult(first);
  const replay = await createResponse(fake.url, { idempotencyKey: key });
  expect(replay.headers["idempotent-replayed"]).toBe("true");
  expect(replay.text).toBe(first.text);
});

test.each(HOSTILE)("%s as an agent or conversation id is simply not found", async (name) => {
  const fake = await fakeServer();
  const before = fake.app.internals.snapshot();
  expectError(await createResponse(fake.url, { agent: name }), 404, "not_found");
  expectError(await streamResponse(fake.url, { agent: name }), 404, "not_found");
  expectError(await listMessages(fake.url, name), 404, "conversation_not_found");
  expectError(await listMessages(fake.url, crypto.randomUUID(), { agent: name }), 404, "conversation_not_found");
  expect(fake.app.internals.snapshot()).toEqual(before);
});

test.each(HOSTILE)("%s as a query parameter or API key is plain data", async (name) => {
  const fake = await fakeServer();
  const { conversation_id } = expectResult(await createResponse(fake.url));
  expectPage(await listMessages(fake.url, conversation_id, { query: `${name}=1&${name}[polluted]=yes` }));
  expectError(await listMessages(fake.url, conversation_id, { key: name }), 401, "unauthorized");
  expectError(await call(fake.url, "GET", `/__fake/requests?limit=${name}`, {}), 400, "invalid_request");
});

test("a hostile X-Fake-Fault item is an unknown item", async () => {
  const fake = await fakeServer();
  const reply = await createResponse(fake.url, { headers: { "x-fake-fault": "__proto__=1" } });
  expect(expectError(reply, 400, "invalid_request").error.message).toContain("__proto__");
});

test("a server whose keys grant an agent named __proto__ serves it like any other", async () => {
  const fake = await fakeServer({ keys: ["constructor=__proto__,prototype@__proto__"] });
  const result = expectResult(await createResponse(fake.url, { key: "constructor", agent: "__proto__" }));
  expectPage(await listMessages(fake.url, result.conversation_id, { key: "constructor", agent: "__proto__" }));
  expectError(
    await listMessages(fake.url, result.conversation_id, { key: "constructor", agent: "prototype" }),
    404,
    "conversation_not_found",
  );
});
