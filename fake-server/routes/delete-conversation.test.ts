import { expect, test } from "vitest";
import {
  createResponse,
  deleteConversation,
  listMessages,
  openStream,
  streamResponse,
} from "../test-support/client.ts";
import { expectError, expectPage, expectResult } from "../test-support/expect.ts";
import { fakeServer } from "../test-support/server.ts";

test("delete is 204 without a body; afterwards the conversation is gone for every operation", async () => {
  const fake = await fakeServer();
  const { conversation_id } = expectResult(await createResponse(fake.url));
  const reply = await deleteConversation(fake.url, conversation_id);
  expect(reply.status).toBe(204);
  expect(reply.text).toBe("");
  expectError(await listMessages(fake.url, conversation_id), 404, "conversation_not_found");
  expectError(await deleteConversation(fake.url, conversation_id), 404, "conversation_not_found");
  expectError(
    await createResponse(fake.url, { body: { message: "hi", conversation_id } }),
    404,
    "conversation_not_found",
  );
  expectError(
    await streamResponse(fake.url, { body: { message: "hi", conversation_id } }),
    404,
    "conversation_not_found",
  );
  expect(fake.app.internals.snapshot()).toMatchObject({ conversations: 0, messages: 0 });
});

test("deleting an unknown conversation is 404 conversation_not_found", async () => {
  const fake = await fakeServer();
  expectError(await deleteConversation(fake.url, crypto.randomUUID()), 404, "conversation_not_found");
});

test("a delete through another agent or a key on another channel is 404, and the conversation survives", async () => {
  const fake = await fakeServer();
  const { conversation_id } = expectResult(await createResponse(fake.url));
  expectError(await deleteConversation(fake.url, conversation_id, { agent: "agent-b" }), 404, "conversation_not_found");
  expectError(await deleteConversation(fake.url, conversation_id, { key: "sk-fake-b" }), 404, "conversation_not_found");
  expect(expectPage(await listMessages(fake.url, conversation_id)).total).toBe(2);
});

test("a replay after the delete returns the stored result and brings nothing back", async () => {
  const fake = await fakeServer();
  const first = await createResponse(fake.url, { idempotencyKey: "k" });
  const { conversation_id } = expectResult(first);
  expect((await deleteConversation(fake.url, conversation_id)).status).toBe(204);
  const replay = await createResponse(fake.url, { idempotencyKey: "k" });
  expect(replay.text).toBe(first.text);
  expectError(await listMessages(fake.url, conversation_id), 404, "conversation_not_found");
  expect(fake.app.internals.snapshot()).toMatchObject({ conversations: 0, messages: 0, idempotencyRecords: 1 });
});

test("a conversation deleted while a stream continues it stays deleted", async () => {
  const fake = await fakeServer({ deltaDelayMs: 60_000 });
  const { conversation_id } = expectResult(await createResponse(fake.url));
  const stream = await openStream(fake.url, { body: { message: "more", conversation_id } });
  expect((await stream.next())?.event).toBe("response.created");
  expect((await deleteConversation(fake.url, conversation_id)).status).toBe(204);
  stream.abort();
  await fake.app.internals.inFlight.whenIdle();
  expectError(await listMessages(fake.url, conversation_id), 404, "conversation_not_found");
  expect(fake.app.internals.snapshot()).toMatchObject({ conversations: 0, messages: 0 });
});
