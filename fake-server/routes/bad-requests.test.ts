import { Readable } from "node:stream";
import { expect, test } from "vitest";
import type { FakeErrorCode } from "../../schemas/index.ts";
import {
  call,
  createResponse,
  deleteConversation,
  listMessages,
  streamResponse,
  type CreateCallOptions,
  type Reply,
} from "../test-support/client.ts";
import { expectError, expectPage, expectResult } from "../test-support/expect.ts";
import { fakeServer } from "../test-support/server.ts";

/** A fake holding one conversation, so that a change to any store would show. */
async function seededFake() {
  const fake = await fakeServer();
  const { conversation_id } = expectResult(await createResponse(fake.url));
  const before = fake.app.internals.snapshot();
  const unchanged = () => expect(fake.app.internals.snapshot()).toEqual(before);
  return { fake, conversationId: conversation_id, unchanged };
}

const MiB = 1024 * 1024;

const badCreates: [string, CreateCallOptions, number, FakeErrorCode][] = [
  ["malformed JSON", { rawBody: '{"message": "hi"' }, 400, "invalid_json"],
  ["an empty body", { rawBody: "" }, 400, "invalid_json"],
  ["Content-Type text/plain", { contentType: "text/plain" }, 415, "unsupported_media_type"],
  ["no Content-Type", { contentType: null }, 415, "unsupported_media_type"],
  ["a body over 1 MiB", { body: { message: "x".repeat(MiB) } }, 413, "payload_too_large"],
  ["no Idempotency-Key", { idempotencyKey: null }, 400, "idempotency_key_missing"],
  ["an empty Idempotency-Key", { idempotencyKey: "" }, 400, "idempotency_key_invalid"],
  ["a blank Idempotency-Key", { idempotencyKey: "   " }, 400, "idempotency_key_invalid"],
  ["a 256-character Idempotency-Key", { idempotencyKey: "k".repeat(256) }, 400, "idempotency_key_invalid"],
  ["an Idempotency-Key with a control character", { idempotencyKey: "a\tb" }, 400, "idempotency_key_invalid"],
  ["a non-UUID conversation_id", { body: { message: "hi", conversation_id: "123" } }, 400, "invalid_request"],
  ["a numeric conversation_id", { body: { message: "hi", conversation_id: 5 } }, 400, "invalid_request"],
  ["no message", { body: { conversation_id: null } }, 400, "invalid_request"],
  ["a numeric message", { body: { message: 42 } }, 400, "invalid_request"],
  ["an empty message", { body: { message: "" } }, 400, "invalid_request"],
  ["a non-string external_reference", { body: { message: "hi", external_reference: 7 } }, 400, "invalid_request"],
  ["a JSON array body", { body: [{ message: "hi" }] }, 400, "invalid_request"],
  ["a JSON string body", { body: "hi" }, 400, "invalid_request"],
  ["a JSON null body", { rawBody: "null" }, 400, "invalid_request"],
  ["metadata as an array", { body: { message: "hi", metadata: ["a"] } }, 400, "invalid_metadata"],
  ["metadata as a string", { body: { message: "hi", metadata: "a=b" } }, 400, "invalid_metadata"],
  ["metadata as null", { body: { message: "hi", metadata: null } }, 400, "invalid_metadata"],
  ["nested metadata", { body: { message: "hi", metadata: { a: { b: "c" } } } }, 400, "invalid_metadata"],
  ["a numeric metadata value", { body: { message: "hi", metadata: { a: 1 } } }, 400, "invalid_metadata"],
  [
    "17 metadata keys",
    { body: { message: "hi", metadata: Object.fromEntries(Array.from({ length: 17 }, (_, i) => [`k${i}`, "v"])) } },
    400,
    "invalid_metadata",
  ],
  [
    "a 65-character metadata key",
    { body: { message: "hi", metadata: { ["k".repeat(65)]: "v" } } },
    400,
    "invalid_metadata",
  ],
  [
    "a 513-character metadata value",
    { body: { message: "hi", metadata: { k: "v".repeat(513) } } },
    400,
    "invalid_metadata",
  ],
  ["a bad message and bad metadata together", { body: { message: 1, metadata: [] } }, 400, "invalid_request"],
];

test.each(badCreates)("create with %s: %i %s, nothing stored", async (_name, options, status, code) => {
  const { fake, unchanged } = await seededFake();
  const body = expectError(await createResponse(fake.url, options), status, code);
  expect(body.error.message.length).toBeGreaterThan(10);
  unchanged();
});

test.each(badCreates.filter(([name]) => !name.includes("metadata")))(
  "stream with %s: the same plain JSON error, never an event stream",
  async (_name, options, status, code) => {
    const { fake, unchanged } = await seededFake();
    const reply = await streamResponse(fake.url, options);
    expectError(reply, status, code);
    expect(reply.events).toEqual([]);
    unchanged();
  },
);

test("a body over the cap sent without Content-Length is cut off at the cap: 413", async () => {
  const { fake, unchanged } = await seededFake();
  const chunk = Buffer.alloc(64 * 1024, "x");
  const body = Readable.from(
    (function* () {
      for (let i = 0; i < 32; i++) yield chunk;
    })(),
  );
  const headers = { authorization: "Bearer sk-fake-a", "content-type": "application/json", "idempotency-key": "big" };
  expectError(await call(fake.url, "POST", "/v1/agents/agent-a/responses", headers, body), 413, "payload_too_large");
  unchanged();
});

test("a smaller maxBodyBytes is honoured, and the request is refused before any effect", async () => {
  const fake = await fakeServer({ maxBodyBytes: 100 });
  expectError(await createResponse(fake.url, { body: { message: "x".repeat(200) } }), 413, "payload_too_large");
  expectResult(await createResponse(fake.url, { body: { message: "x".repeat(50) } }));
});

test("Content-Type parameters are allowed, and its case does not matter", async () => {
  const { fake } = await seededFake();
  expectResult(await createResponse(fake.url, { contentType: "application/json; charset=utf-8" }));
  expectResult(await createResponse(fake.url, { contentType: "Application/JSON" }));
});

test("a 255-character Idempotency-Key is accepted", async () => {
  const { fake } = await seededFake();
  expectResult(await createResponse(fake.url, { idempotencyKey: "k".repeat(255) }));
});

test("validation messages name the field that failed", async () => {
  const { fake } = await seededFake();
  const body = expectError(
    await createResponse(fake.url, { body: { message: "hi", metadata: { a: 1 } } }),
    400,
    "invalid_metadata",
  );
  expect(body.error.message).toContain("metadata.a");
  expect(body.error.message).toContain("metadata values must be strings");
});

test.each(["abc", "123", "__proto__", "0b7e2c3a-2f4e-4c1e-9d8a-5b6c7d8e9f0"])(
  "a path conversation id %j that is not a UUID is 404 conversation_not_found on list and delete",
  async (id) => {
    const { fake, unchanged } = await seededFake();
    expectError(await listMessages(fake.url, id), 404, "conversation_not_found");
    expectError(await deleteConversation(fake.url, id), 404, "conversation_not_found");
    unchanged();
  },
);

test.each([
  "page=0",
  "page=-1",
  "page=1.5",
  "page=abc",
  "page=",
  "page=1e2",
  "page_size=0",
  "page_size=-1",
  "page_size=1.5",
  "page_size=abc",
  "page_size=101",
  "page_size=",
  "page=1&page=2",
  "page_size=5&page_size=5",
])("listing with %s is 400 invalid_pagination", async (query) => {
  const { fake, conversationId, unchanged } = await seededFake();
  const body = expectError(await listMessages(fake.url, conversationId, { query }), 400, "invalid_pagination");
  expect(body.error.message).toMatch(/page/);
  unchanged();
});

const endpoints: [
  string,
  (url: string, key: string | null, conversationId: string, headers?: Record<string, string>) => Promise<Reply>,
][] = [
  ["create", (url, key, _id, headers) => createResponse(url, { key, headers })],
  ["stream", (url, key, _id, headers) => streamResponse(url, { key, headers })],
  ["list", (url, key, id, headers) => listMessages(url, id, { key, headers })],
  ["delete", (url, key, id, headers) => deleteConversation(url, id, { key, headers })],
];

test.each(endpoints)(
  "%s without a key, with a malformed one, or an unknown one is 401 with WWW-Authenticate: Bearer",
  async (_name, send) => {
    const { fake, conversationId, unchanged } = await seededFake();
    const replies = [
      await send(fake.url, null, conversationId),
      await send(fake.url, null, conversationId, { authorization: "sk-fake-a" }),
      await send(fake.url, null, conversationId, { authorization: "Basic c2stZmFrZS1hOg==" }),
      await send(fake.url, null, conversationId, { authorization: "Bearer" }),
      await send(fake.url, "sk-unknown", conversationId),
    ];
    for (const reply of replies) {
      expectError(reply, 401, "unauthorized");
      expect(reply.headers["www-authenticate"]).toBe("Bearer");
    }
    unchanged();
  },
);

test("auth comes before routing under /v1, and is not asked for elsewhere", async () => {
  const { fake, unchanged } = await seededFake();
  expectError(await call(fake.url, "GET", "/v1/nothing", {}), 401, "unauthorized");
  expectError(await call(fake.url, "GET", "/v1/nothing", { authorization: "Bearer sk-fake-a" }), 404, "not_found");
  expectError(await call(fake.url, "GET", "/nothing", {}), 404, "not_found");
  unchanged();
});

test.each([
  ["GET", "/v1/agents/agent-a/responses", "POST"],
  ["PUT", "/v1/agents/agent-a/responses/stream", "POST"],
  ["POST", "/v1/agents/agent-a/conversations/0b7e2c3a-2f4e-4c1e-9d8a-5b6c7d8e9f01/messages", "GET, HEAD"],
  ["GET", "/v1/agents/agent-a/conversations/0b7e2c3a-2f4e-4c1e-9d8a-5b6c7d8e9f01", "DELETE"],
  ["GET", "/__fake/reset", "POST"],
  ["DELETE", "/__fake/health", "GET"],
])("%s %s is 405 method_not_allowed with Allow: %s", async (method, path, allow) => {
  const { fake, unchanged } = await seededFake();
  const reply = await call(fake.url, method, path, { authorization: "Bearer sk-fake-a" });
  expectError(reply, 405, "method_not_allowed");
  expect(reply.headers["allow"]).toBe(allow);
  unchanged();
});

test("list and delete through an agent the key does not grant are 404 conversation_not_found", async () => {
  const { fake, conversationId, unchanged } = await seededFake();
  expectError(
    await listMessages(fake.url, conversationId, { key: "sk-fake-b", agent: "agent-b" }),
    404,
    "conversation_not_found",
  );
  expectError(
    await deleteConversation(fake.url, conversationId, { key: "sk-fake-b", agent: "agent-b" }),
    404,
    "conversation_not_found",
  );
  unchanged();
});

test("the list route answers HEAD like GET, without a body", async () => {
  const { fake, conversationId } = await seededFake();
  const reply = await call(fake.url, "HEAD", `/v1/agents/agent-a/conversations/${conversationId}/messages`, {
    authorization: "Bearer sk-fake-a",
  });
  expect(reply.status).toBe(200);
  expect(reply.text).toBe("");
  expectPage(await listMessages(fake.url, conversationId));
});
