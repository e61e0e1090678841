/**
 * The interaction mutants against the running fake: each scenario runs on the conforming fake
 * and on the mutant, and only the mutant gets it wrong. Overlaps are held open on purpose
 * rather than timed: a stream or a plain create pauses for a minute and is let go, once the
 * other request is answered, by hanging up (the exchange then completes at once and is stored).
 */
import { Client, request } from "undici";
import { expect, test } from "vitest";
import { MessagePage } from "../../schemas/index.ts";
import type { FakeServerOptions } from "../options.ts";
import type { InspectableFakeServer } from "../server.ts";
import {
  createResponse,
  deleteConversation,
  listMessages,
  openStream,
  streamResponse,
  type CreateCallOptions,
} from "../test-support/client.ts";
import { completedOf, parseStream } from "../test-support/events.ts";
import { expectError, expectPage, expectResult } from "../test-support/expect.ts";
import { fakeServer } from "../test-support/server.ts";
import { until } from "../test-support/until.ts";

const EXPORT = "How do I export my data?";
const REMINDERS = "How do reminders work?";

/** An exchange held open until `release`, which hangs up and waits until it has been stored. */
interface Held {
  readonly conversationId: string | undefined;
  release(): Promise<void>;
}

async function settled(fake: InspectableFakeServer): Promise<void> {
  await until(() => fake.app.internals.inFlight.size === 0, "every exchange to settle");
}

/** A stream read up to response.created, then held: a minute between deltas. */
async function heldStream(fake: InspectableFakeServer, options: CreateCallOptions): Promise<Held> {
  const stream = await openStream(fake.url, { ...options, headers: { "x-fake-fault": "delta-delay=60000" } });
  expect(stream.status).toBe(200);
  const created = await stream.next();
  expect(created?.event).toBe("response.created");
  const { conversation_id } = JSON.parse(created?.data ?? "{}") as { conversation_id: string };
  return {
    conversationId: conversation_id,
    release: async () => {
      stream.abort();
      await settled(fake);
    },
  };
}

/** A plain create held for a minute before it answers; resolves once it pauses, its key reserved. */
async function heldCreate(
  fake: InspectableFakeServer,
  options: { idempotencyKey: string; body: unknown },
): Promise<Held> {
  const { timers } = fake.app.internals;
  const pausedBefore = timers.active;
  const abort = new AbortController();
  const pending = request(`${fake.url}/v1/agents/agent-a/responses`, {
    method: "POST",
    headers: {
      authorization: "Bearer sk-fake-a",
      "content-type": "application/json",
      "idempotency-key": options.idempotencyKey,
      "x-fake-fault": "first-event-delay=60000",
    },
    body: JSON.stringify(options.body),
    signal: abort.signal,
  });
  await until(() => timers.active === pausedBefore + 1, "the create to pause");
  return {
    conversationId: undefined,
    release: async () => {
      abort.abort();
      await expect(pending).rejects.toThrow();
      await settled(fake);
    },
  };
}

/** A fake with one conversation of one exchange. */
async function withConversation(options: FakeServerOptions) {
  const fake = await fakeServer(options);
  const { conversation_id } = expectResult(
    await createResponse(fake.url, { idempotencyKey: "first", body: { message: EXPORT } }),
  );
  const total = async () => expectPage(await listMessages(fake.url, conversation_id)).total;
  return { fake, conversationId: conversation_id, total };
}

test("continuation-dropped-on-conflict (RESP-2): a plain continuation overtaken by another is answered but not stored", async () => {
  const steps = async (options: FakeServerOptions) => {
    const { fake, conversationId, total } = await withConversation(options);
    const slow = { idempotencyKey: "slow", body: { message: REMINDERS, conversation_id: conversationId } };
    const held = await heldCreate(fake, slow);
    expectResult(
      await createResponse(fake.url, { body: { message: "And on my phone?", conversation_id: conversationId } }),
    );
    await held.release();
    // The held continuation did answer: its key replays its result.
    const replay = await createResponse(fake.url, slow);
    expect(replay.headers["idempotent-replayed"]).toBe("true");
    expect(expectResult(replay).conversation_id).toBe(conversationId);
    return total();
  };
  expect(await steps({})).toBe(6);
  expect(await steps({ mutant: "continuation-dropped-on-conflict" })).toBe(4);
});

test("continuation-dropped-on-conflict: a stream overtaken the same way is still stored", async () => {
  const { fake, conversationId, total } = await withConversation({ mutant: "continuation-dropped-on-conflict" });
  const held = await heldStream(fake, { body: { message: REMINDERS, conversation_id: conversationId } });
  expectResult(
    await createResponse(fake.url, { body: { message: "And on my phone?", conversation_id: conversationId } }),
  );
  await held.release();
  expect(await total()).toBe(6);
});

test("stream-dropped-on-conflict (SSE-8): a streamed continuation overtaken by another completes but is not stored", async () => {
  const steps = async (options: FakeServerOptions) => {
    const { fake, conversationId, total } = await withConversation(options);
    const streamed = { idempotencyKey: "streamed", body: { message: REMINDERS, conversation_id: conversationId } };
    const held = await heldStream(fake, streamed);
    expectResult(
      await createResponse(fake.url, { body: { message: "And on my phone?", conversation_id: conversationId } }),
    );
    await held.release();
    const replay = await streamResponse(fake.url, streamed);
    expect(completedOf(parseStream(replay.events)).response.conversation_id).toBe(conversationId);
    return total();
  };
  expect(await steps({})).toBe(6);
  expect(await steps({ mutant: "stream-dropped-on-conflict" })).toBe(4);
});

test("key-race-across-endpoints (IDEM-5): a key running on the stream runs again on the plain endpoint, not on the stream", async () => {
  const steps = async (options: FakeServerOptions) => {
    const { fake, conversationId, total } = await withConversation(options);
    const same = { idempotencyKey: "same", body: { message: REMINDERS, conversation_id: conversationId } };
    const held = await heldStream(fake, same);
    expectError(await streamResponse(fake.url, same), 409, "idempotency_key_in_use");
    const plain = await createResponse(fake.url, same);
    await held.release();
    return { plain, total: await total() };
  };
  const conforming = await steps({});
  expectError(conforming.plain, 409, "idempotency_key_in_use");
  expect(conforming.total).toBe(4);
  const mutant = await steps({ mutant: "key-race-across-endpoints" });
  expectResult(mutant.plain);
  expect(mutant.plain.headers["idempotent-replayed"]).toBeUndefined();
  expect(mutant.total).toBe(6);
});

test("delete-undone-by-exchange (DEL-1): a delete during an exchange, on either endpoint, is undone when it finishes", async () => {
  const steps = async (options: FakeServerOptions, hold: "create" | "stream" | "new stream") => {
    const { fake, conversationId: existing } = await withConversation(options);
    const continuation = { idempotencyKey: "during", body: { message: REMINDERS, conversation_id: existing } };
    const held =
      hold === "create"
        ? await heldCreate(fake, continuation)
        : hold === "stream"
          ? await heldStream(fake, continuation)
          : await heldStream(fake, { body: { message: REMINDERS } });
    const conversationId = held.conversationId ?? existing;
    expect((await deleteConversation(fake.url, conversationId)).status).toBe(204);
    await held.release();
    return listMessages(fake.url, conversationId);
  };
  for (const hold of ["create", "stream", "new stream"] as const) {
    expectError(await steps({}, hold), 404, "conversation_not_found");
    const listed = expectPage(await steps({ mutant: "delete-undone-by-exchange" }, hold));
    expect(listed.total, hold).toBe(hold === "new stream" ? 2 : 4);
  }
});

test("replay-answers-latest-turn (IDEM-1): a plain replay after a later turn answers that turn; the stream replays the stored answer", async () => {
  const steps = async (options: FakeServerOptions) => {
    const fake = await fakeServer(options);
    const first = { idempotencyKey: "first", body: { message: EXPORT } };
    const original = expectResult(await createResponse(fake.url, first));
    // Right after the first request the replay is still right.
    expect(expectResult(await createResponse(fake.url, first))).toEqual(original);
    const later = expectResult(
      await createResponse(fake.url, { body: { message: REMINDERS, conversation_id: original.conversation_id } }),
    );
    expect(later.response).not.toBe(original.response);
    const plain = expectResult(await createResponse(fake.url, first));
    const streamed = completedOf(parseStream((await streamResponse(fake.url, first)).events)).response;
    expect(expectPage(await listMessages(fake.url, original.conversation_id)).total).toBe(4);
    return { original, later, plain, streamed };
  };
  const conforming = await steps({});
  expect(conforming.plain).toEqual(conforming.original);
  expect(conforming.streamed.output_text).toBe(conforming.original.response);
  const mutant = await steps({ mutant: "replay-answers-latest-turn" });
  expect(mutant.plain).toEqual({
    ...mutant.original,
    response: mutant.later.response,
    citations: mutant.later.citations,
  });
  expect(mutant.streamed.output_text).toBe(mutant.original.response);
});

test("page-alone-default-size (LIST-2): page without page_size is served with 20; every other subset is right", async () => {
  const steps = async (options: FakeServerOptions) => {
    const fake = await fakeServer(options);
    const conversation = fake.app.internals.conversations.seed("agent-a", "web", 11);
    const list = async (query: string) =>
      MessagePage.parse((await listMessages(fake.url, conversation.id, { query })).json);
    return {
      pageAlone: await list("page=1"),
      others: [await list(""), await list("page_size=50"), await list("page=1&page_size=50")],
    };
  };
  const conforming = await steps({});
  expect(conforming.pageAlone).toMatchObject({ page: 1, page_size: 50, total: 22, has_more: false });
  expect(conforming.pageAlone.items).toHaveLength(22);
  const mutant = await steps({ mutant: "page-alone-default-size" });
  expect(mutant.pageAlone).toMatchObject({ page: 1, page_size: 20, total: 22, has_more: true });
  expect(mutant.pageAlone.items).toHaveLength(20);
  for (const page of [...conforming.others, ...mutant.others]) {
    expect(page).toMatchObject({ page: 1, page_size: 50, total: 22, has_more: false });
    expect(page.items).toHaveLength(22);
  }
});

test("stream-scope-unchecked (SCOPE-4): another agent's or channel's stream appends to the conversation; the plain create does not", async () => {
  for (const other of [{ agent: "agent-b" }, { key: "sk-fake-b" }]) {
    const body = (conversationId: string) => ({
      body: { message: REMINDERS, conversation_id: conversationId },
      ...other,
    });
    const conforming = await withConversation({});
    expectError(
      await streamResponse(conforming.fake.url, body(conforming.conversationId)),
      404,
      "conversation_not_found",
    );
    expect(await conforming.total()).toBe(2);

    const mutant = await withConversation({ mutant: "stream-scope-unchecked" });
    expectError(await createResponse(mutant.fake.url, body(mutant.conversationId)), 404, "conversation_not_found");
    const stream = await streamResponse(mutant.fake.url, body(mutant.conversationId));
    expect(completedOf(parseStream(stream.events)).response.conversation_id).toBe(mutant.conversationId);
    expect(await mutant.total()).toBe(4);
  }
});

test("stream-updated-at-frozen (LIST-8): a streamed exchange leaves updated_at where it was; a plain one moves it", async () => {
  const steps = async (options: FakeServerOptions) => {
    const { fake, conversationId } = await withConversation(options);
    const updatedAt = async () =>
      Date.parse(expectPage(await listMessages(fake.url, conversationId)).conversation.updated_at);
    const before = await updatedAt();
    completedOf(
      parseStream(
        (await streamResponse(fake.url, { body: { message: REMINDERS, conversation_id: conversationId } })).events,
      ),
    );
    const afterStream = await updatedAt();
    expectResult(
      await createResponse(fake.url, { body: { message: "And on my phone?", conversation_id: conversationId } }),
    );
    const afterPlain = await updatedAt();
    expect(afterPlain).toBeGreaterThan(afterStream);
    return afterStream - before;
  };
  expect(await steps({})).toBeGreaterThan(0);
  expect(await steps({ mutant: "stream-updated-at-frozen" })).toBe(0);
});

test("idempotency-per-replica (IDEM-2): a replay on a connection of the other replica answers the stored result and writes the exchange again", async () => {
  const steps = async (options: FakeServerOptions) => {
    const fake = await fakeServer(options);
    // One TCP connection each: the first goes to replica 0, the second to replica 1.
    const connections = [new Client(fake.url), new Client(fake.url)];
    const create = async (connection: Client, body: unknown) => {
      const response = await connection.request({
        path: "/v1/agents/agent-a/responses",
        method: "POST",
        headers: { authorization: "Bearer sk-fake-a", "content-type": "application/json", "idempotency-key": "k" },
        body: JSON.stringify(body),
      });
      return {
        replayed: response.headers["idempotent-replayed"] === "true",
        result: expectResult({ status: response.statusCode, headers: {}, text: "", json: await response.body.json() }),
      };
    };
    try {
      const [first, second] = connections as [Client, Client];
      const original = await create(first, { message: EXPORT });
      const sameConnection = await create(first, { message: EXPORT });
      const otherConnection = await create(second, { message: EXPORT });
      expect(sameConnection).toEqual({ replayed: true, result: original.result });
      expect(otherConnection).toEqual({ replayed: true, result: original.result });
      const total = expectPage(await listMessages(fake.url, original.result.conversation_id)).total;
      return { total, conversations: fake.app.internals.snapshot().conversations };
    } finally {
      await Promise.all(connections.map((connection) => connection.close()));
    }
  };
  expect(await steps({})).toEqual({ total: 2, conversations: 1 });
  expect(await steps({ mutant: "idempotency-per-replica" })).toEqual({ total: 4, conversations: 1 });
});

test("race-loser-500 (IDEM-9): a request whose key is still running gets 500 instead of 409, and nothing is stored for it", async () => {
  const steps = async (options: FakeServerOptions) => {
    const { fake, conversationId, total } = await withConversation(options);
    const same = { idempotencyKey: "same", body: { message: REMINDERS, conversation_id: conversationId } };
    const held = await heldStream(fake, same);
    const losers = [await createResponse(fake.url, same), await streamResponse(fake.url, same)];
    await held.release();
    expect(await total()).toBe(4);
    return losers;
  };
  for (const loser of await steps({})) expectError(loser, 409, "idempotency_key_in_use");
  for (const loser of await steps({ mutant: "race-loser-500" })) expectError(loser, 500, "internal_error");
});

test("replay-after-delete-restores (DEL-3): replaying a deleted conversation's key brings it back with that exchange", async () => {
  const steps = async (options: FakeServerOptions) => {
    const fake = await fakeServer(options);
    const first = { idempotencyKey: "first", body: { message: EXPORT } };
    const original = expectResult(await createResponse(fake.url, first));
    expect((await deleteConversation(fake.url, original.conversation_id)).status).toBe(204);
    const replay = await createResponse(fake.url, first);
    expect(replay.headers["idempotent-replayed"]).toBe("true");
    expect(expectResult(replay)).toEqual(original);
    return listMessages(fake.url, original.conversation_id);
  };
  expectError(await steps({}), 404, "conversation_not_found");
  const restored = expectPage(await steps({ mutant: "replay-after-delete-restores" }));
  expect(restored.items.map((item) => [item.role, item.content])).toEqual([
    ["user", EXPORT],
    ["assistant", expect.any(String)],
  ]);
});
