import { expect, test } from "vitest";
import { Uuid } from "../../schemas/index.ts";
import { ManualClock } from "../test-support/manual-clock.ts";
import { createResponse, listMessages } from "../test-support/client.ts";
import { expectError, expectPage, expectResult } from "../test-support/expect.ts";
import { fakeServer } from "../test-support/server.ts";

test("a create without conversation_id starts a new conversation holding the exchange", async () => {
  const fake = await fakeServer();
  const result = expectResult(await createResponse(fake.url, { body: { message: "How do I export my data?" } }));
  expect(Uuid.safeParse(result.conversation_id).success).toBe(true);
  expect(result.citations.map((c) => c.document_id)).toContain("doc-export");
  const page = expectPage(await listMessages(fake.url, result.conversation_id));
  expect(page.items.map((m) => [m.role, m.content])).toEqual([
    ["user", "How do I export my data?"],
    ["assistant", result.response],
  ]);
  expect(page.items[1]).toMatchObject({ citations: result.citations });
});

test("a null conversation_id also starts a new conversation, each with a fresh id", async () => {
  const fake = await fakeServer();
  const first = expectResult(await createResponse(fake.url, { body: { message: "hi", conversation_id: null } }));
  const second = expectResult(await createResponse(fake.url, { body: { message: "hi", conversation_id: null } }));
  expect(first.conversation_id).not.toBe(second.conversation_id);
});

test("a create naming a conversation in scope continues it", async () => {
  const fake = await fakeServer();
  const { conversation_id } = expectResult(await createResponse(fake.url));
  const next = expectResult(await createResponse(fake.url, { body: { message: "And billing?", conversation_id } }));
  expect(next.conversation_id).toBe(conversation_id);
  expect(expectPage(await listMessages(fake.url, conversation_id)).total).toBe(4);
});

test("external_reference and metadata are accepted", async () => {
  const fake = await fakeServer();
  expectResult(
    await createResponse(fake.url, {
      body: { message: "hi", external_reference: "order-42", metadata: { channel: "web", "trace-id": "abc" } },
    }),
  );
  expectResult(await createResponse(fake.url, { body: { message: "hi", external_reference: null, metadata: {} } }));
});

test("unknown body fields are ignored", async () => {
  const fake = await fakeServer();
  expectResult(await createResponse(fake.url, { body: { message: "hi", stream: true, extra: { a: 1 } } }));
});

test("continuing an unknown conversation is 404 conversation_not_found and changes nothing", async () => {
  const fake = await fakeServer();
  const before = fake.app.internals.snapshot();
  const reply = await createResponse(fake.url, { body: { message: "hi", conversation_id: crypto.randomUUID() } });
  expectError(reply, 404, "conversation_not_found");
  expect(fake.app.internals.snapshot()).toEqual(before);
});

test("an agent the key does not grant is 404 not_found on create, and nothing changes", async () => {
  const fake = await fakeServer();
  const before = fake.app.internals.snapshot();
  const reply = await createResponse(fake.url, { key: "sk-fake-b", agent: "agent-b" });
  expect(expectError(reply, 404, "not_found").error.message).toContain("agent-b");
  expect(fake.app.internals.snapshot()).toEqual(before);
});

test("a replay returns the stored body byte for byte, marked Idempotent-Replayed, and consumes nothing", async () => {
  const fake = await fakeServer();
  const first = await createResponse(fake.url, { idempotencyKey: "k-1" });
  const result = expectResult(first);
  expect(first.headers["idempotent-replayed"]).toBeUndefined();
  const replay = await createResponse(fake.url, { idempotencyKey: "k-1" });
  expect(replay.status).toBe(200);
  expect(replay.text).toBe(first.text);
  expect(replay.headers["idempotent-replayed"]).toBe("true");
  expect(expectPage(await listMessages(fake.url, result.conversation_id)).total).toBe(2);
});

test("the same payload with other key order and whitespace is a replay", async () => {
  const fake = await fakeServer();
  const first = await createResponse(fake.url, {
    idempotencyKey: "k",
    rawBody: '{"message":"hi","metadata":{"a":"1","b":"2"}}',
  });
  const replay = await createResponse(fake.url, {
    idempotencyKey: "k",
    rawBody: '{ "metadata": { "b": "2", "a": "1" },\n  "message": "hi" }',
  });
  expect(replay.headers["idempotent-replayed"]).toBe("true");
  expect(replay.text).toBe(first.text);
});

test("the same key with another payload is 409 idempotency_key_reused and consumes nothing", async () => {
  const fake = await fakeServer();
  const { conversation_id } = expectResult(
    await createResponse(fake.url, { idempotencyKey: "k", body: { message: "a" } }),
  );
  const before = fake.app.internals.snapshot();
  const reply = await createResponse(fake.url, { idempotencyKey: "k", body: { message: "b", conversation_id } });
  expectError(reply, 409, "idempotency_key_reused");
  expect(fake.app.internals.snapshot()).toEqual(before);
});

test("idempotency keys are scoped per API key and per agent", async () => {
  const fake = await fakeServer();
  const body = { message: "same" };
  const a = expectResult(await createResponse(fake.url, { idempotencyKey: "shared", body }));
  const otherAgent = await createResponse(fake.url, { idempotencyKey: "shared", body, agent: "agent-b" });
  const otherKey = await createResponse(fake.url, { idempotencyKey: "shared", body, key: "sk-fake-b" });
  for (const reply of [otherAgent, otherKey]) {
    expect(reply.headers["idempotent-replayed"]).toBeUndefined();
    expect(expectResult(reply).conversation_id).not.toBe(a.conversation_id);
  }
});

test("records expire after the TTL: the same key then runs the operation again", async () => {
  const clock = new ManualClock();
  const fake = await fakeServer({ idempotencyTtlMs: 60_000 }, { clock });
  const first = expectResult(await createResponse(fake.url, { idempotencyKey: "k" }));
  clock.advance(59_999);
  expect((await createResponse(fake.url, { idempotencyKey: "k" })).headers["idempotent-replayed"]).toBe("true");
  clock.advance(1);
  const again = await createResponse(fake.url, { idempotencyKey: "k" });
  expect(again.headers["idempotent-replayed"]).toBeUndefined();
  expect(expectResult(again).conversation_id).not.toBe(first.conversation_id);
});
