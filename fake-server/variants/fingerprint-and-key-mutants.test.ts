/**
 * The interaction mutants of idempotency over the whole input space: a fingerprint that skips a
 * field, keys matched looser than they were sent. Each scenario runs on the conforming fake and
 * on the mutant, and only the mutant gets it wrong.
 */
import { expect, test } from "vitest";
import { KEY_COLUMN_CHARS } from "../exchange/key-collation.ts";
import type { FakeServerOptions } from "../options.ts";
import { createResponse, listMessages, streamResponse } from "../test-support/client.ts";
import { completedOf, parseStream } from "../test-support/events.ts";
import { expectError, expectPage, expectResult } from "../test-support/expect.ts";
import { fakeServer } from "../test-support/server.ts";

const EXPORT = "How do I export my data?";
const REMINDERS = "How do reminders work?";

/**
 * A key reused on the plain endpoint with a body that differs from its first only in the field a
 * mutant's plain fingerprint skips: on the stream, and with another message, it is 409 on every
 * fake; on the plain endpoint it is 409 on the conforming fake, and the mutant replays the first
 * result and appends nothing. `alsoCheck` runs on each fake before the plain reuse.
 */
async function plainReuseDifferingOnlyInSkippedField(
  mutant: string,
  first: Record<string, unknown>,
  reusedOf: (conversationId: string) => Record<string, unknown>,
  alsoCheck: (url: string) => Promise<void> = async () => {},
): Promise<void> {
  const steps = async (options: FakeServerOptions) => {
    const fake = await fakeServer(options);
    const result = expectResult(await createResponse(fake.url, { idempotencyKey: "k", body: first }));
    const reused = { idempotencyKey: "k", body: reusedOf(result.conversation_id) };
    await alsoCheck(fake.url);
    expectError(await streamResponse(fake.url, reused), 409, "idempotency_key_reused");
    expectError(
      await createResponse(fake.url, { idempotencyKey: "k", body: { ...first, message: REMINDERS } }),
      409,
      "idempotency_key_reused",
    );
    const plain = await createResponse(fake.url, reused);
    expect(expectPage(await listMessages(fake.url, result.conversation_id)).total).toBe(2);
    return { first: result, plain };
  };
  expectError((await steps({})).plain, 409, "idempotency_key_reused");
  const broken = await steps({ mutant });
  expect(broken.plain.headers["idempotent-replayed"]).toBe("true");
  expect(expectResult(broken.plain)).toEqual(broken.first);
}

test("metadata-outside-fingerprint (IDEM-3): a plain reuse differing only in metadata replays; the stream answers 409", async () => {
  await plainReuseDifferingOnlyInSkippedField(
    "metadata-outside-fingerprint",
    { message: EXPORT, metadata: { order: "1" } },
    () => ({ message: EXPORT, metadata: { order: "2" } }),
    async (url) => {
      // The same metadata in another key order is the same payload everywhere.
      const reordered = await createResponse(url, {
        idempotencyKey: "k",
        body: { metadata: { order: "1" }, message: EXPORT },
      });
      expect(reordered.headers["idempotent-replayed"]).toBe("true");
    },
  );
});

test("fingerprint-skips-conversation (IDEM-3): a plain reuse of a new conversation's key sent to that conversation replays; the stream answers 409", async () => {
  await plainReuseDifferingOnlyInSkippedField(
    "fingerprint-skips-conversation",
    { message: EXPORT },
    (conversationId) => ({ message: EXPORT, conversation_id: conversationId }),
  );
});

test("stream-fingerprint-skips-reference (IDEM-4): a stream reuse differing only in external_reference replays; the plain endpoint answers 409", async () => {
  const steps = async (options: FakeServerOptions) => {
    const fake = await fakeServer(options);
    const first = completedOf(
      parseStream(
        (await streamResponse(fake.url, { idempotencyKey: "k", body: { message: EXPORT, external_reference: "a" } }))
          .events,
      ),
    ).response;
    const reused = { idempotencyKey: "k", body: { message: EXPORT, external_reference: "b" } };
    expectError(await createResponse(fake.url, reused), 409, "idempotency_key_reused");
    expectError(
      await streamResponse(fake.url, { ...reused, body: { message: REMINDERS, external_reference: "a" } }),
      409,
      "idempotency_key_reused",
    );
    const streamed = await streamResponse(fake.url, reused);
    expect(expectPage(await listMessages(fake.url, first.conversation_id)).total).toBe(2);
    return { first, streamed };
  };
  expectError((await steps({})).streamed, 409, "idempotency_key_reused");
  const mutant = await steps({ mutant: "stream-fingerprint-skips-reference" });
  expect(mutant.streamed.headers["idempotent-replayed"]).toBe("true");
  expect(completedOf(parseStream(mutant.streamed.events)).response).toEqual(mutant.first);
});

test("turn-keys-case-insensitive (RESP-2): a plain continuation under a key differing only in case replays instead of running", async () => {
  const steps = async (options: FakeServerOptions) => {
    const fake = await fakeServer(options);
    const { conversation_id } = expectResult(
      await createResponse(fake.url, { idempotencyKey: "Start-Key", body: { message: EXPORT } }),
    );
    const total = async () => expectPage(await listMessages(fake.url, conversation_id)).total;
    const body = { message: REMINDERS, conversation_id };
    expectResult(await createResponse(fake.url, { idempotencyKey: "Turn-Key-7", body }));
    const nearMiss = await createResponse(fake.url, { idempotencyKey: "turn-key-7", body });
    const afterNearMiss = await total();
    // A streamed near-miss and a new conversation's near-miss run, on the mutant too.
    completedOf(parseStream((await streamResponse(fake.url, { idempotencyKey: "TURN-KEY-7", body })).events));
    const fresh = expectResult(
      await createResponse(fake.url, { idempotencyKey: "start-key", body: { message: EXPORT } }),
    );
    expect(fresh.conversation_id).not.toBe(conversation_id);
    return { nearMiss, afterNearMiss, final: await total() };
  };
  const conforming = await steps({});
  expect(conforming.nearMiss.headers["idempotent-replayed"]).toBeUndefined();
  expect(conforming).toMatchObject({ afterNearMiss: 6, final: 8 });
  const mutant = await steps({ mutant: "turn-keys-case-insensitive" });
  expect(mutant.nearMiss.headers["idempotent-replayed"]).toBe("true");
  expect(mutant).toMatchObject({ afterNearMiss: 4, final: 6 });
});

test("new-conversation-keys-truncated (RESP-3): a new key sharing its first 40 characters with an earlier one answers that conversation", async () => {
  const prefix = "7c4f2a9e-51b3-4d8e-a6f0-92c1b7e3d4a5-ab"; // 39 characters, then one more before they differ
  expect(prefix.length).toBe(KEY_COLUMN_CHARS - 1);
  const steps = async (options: FakeServerOptions) => {
    const fake = await fakeServer(options);
    const first = expectResult(
      await createResponse(fake.url, { idempotencyKey: `${prefix}c-first`, body: { message: EXPORT } }),
    );
    const plain = expectResult(
      await createResponse(fake.url, { idempotencyKey: `${prefix}c-second`, body: { message: EXPORT } }),
    );
    const streamed = completedOf(
      parseStream(
        (await streamResponse(fake.url, { idempotencyKey: `${prefix}c-third`, body: { message: EXPORT } })).events,
      ),
    ).response;
    // Keys that differ within the first 40 characters, and continuations, are told apart on the mutant too.
    const shorter = expectResult(
      await createResponse(fake.url, { idempotencyKey: `${prefix}d-first`, body: { message: EXPORT } }),
    );
    expect(shorter.conversation_id).not.toBe(first.conversation_id);
    const turn = { message: REMINDERS, conversation_id: first.conversation_id };
    expectResult(await createResponse(fake.url, { idempotencyKey: `${prefix}c-turn-1`, body: turn }));
    expectResult(await createResponse(fake.url, { idempotencyKey: `${prefix}c-turn-2`, body: turn }));
    return { first, plain, streamed, total: expectPage(await listMessages(fake.url, first.conversation_id)).total };
  };
  const conforming = await steps({});
  expect(
    new Set([conforming.first.conversation_id, conforming.plain.conversation_id, conforming.streamed.conversation_id])
      .size,
  ).toBe(3);
  expect(conforming.total).toBe(6);
  const mutant = await steps({ mutant: "new-conversation-keys-truncated" });
  expect(mutant.plain).toEqual(mutant.first);
  expect(mutant.streamed.conversation_id).toBe(mutant.first.conversation_id);
  expect(mutant.total).toBe(6);
});
