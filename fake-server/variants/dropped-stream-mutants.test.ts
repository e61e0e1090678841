/**
 * The interaction mutants of a stream its client drops: the exchange completes and is stored on
 * every fake, and then the key is mishandled on the stream endpoint only. The client drops for
 * real: it reads up to response.created (a minute before the first delta) and hangs up.
 */
import { expect, test } from "vitest";
import type { FakeServerOptions } from "../options.ts";
import type { InspectableFakeServer } from "../server.ts";
import { createResponse, listMessages, openStream, streamResponse } from "../test-support/client.ts";
import { completedOf, parseStream } from "../test-support/events.ts";
import { expectError, expectPage, expectResult } from "../test-support/expect.ts";
import { fakeServer } from "../test-support/server.ts";
import { until } from "../test-support/until.ts";

const EXPORT = "How do I export my data?";
const REMINDERS = "How do reminders work?";

/** A stream read up to response.created and dropped there; resolves once its exchange was stored. */
async function droppedAfterCreated(
  fake: InspectableFakeServer,
  options: { idempotencyKey: string; body: unknown },
): Promise<string> {
  const stream = await openStream(fake.url, { ...options, headers: { "x-fake-fault": "delta-delay=60000" } });
  expect(stream.status).toBe(200);
  const created = await stream.next();
  expect(created?.event).toBe("response.created");
  stream.abort();
  await until(() => fake.app.internals.inFlight.size === 0, "the dropped stream to be stored");
  return (JSON.parse(created?.data ?? "{}") as { conversation_id: string }).conversation_id;
}

/** A conversation of one exchange, then a continuation streamed under `key` and dropped. */
async function continuationDropped(options: FakeServerOptions) {
  const fake = await fakeServer(options);
  const { conversation_id } = expectResult(await createResponse(fake.url, { body: { message: EXPORT } }));
  const dropped = { idempotencyKey: "dropped", body: { message: REMINDERS, conversation_id } };
  expect(await droppedAfterCreated(fake, dropped)).toBe(conversation_id);
  const total = async () => expectPage(await listMessages(fake.url, conversation_id)).total;
  // The dropped exchange was stored, and the plain endpoint replays it, on every fake.
  expect(await total()).toBe(4);
  const plain = await createResponse(fake.url, dropped);
  expect(plain.headers["idempotent-replayed"]).toBe("true");
  expect(expectResult(plain).conversation_id).toBe(conversation_id);
  return { fake, dropped, total, result: expectResult(plain) };
}

test("undelivered-stream-reruns (IDEM-4): a stream under a dropped stream's key runs the exchange again", async () => {
  const conforming = await continuationDropped({});
  const replay = await streamResponse(conforming.fake.url, conforming.dropped);
  expect(replay.headers["idempotent-replayed"]).toBe("true");
  expect(completedOf(parseStream(replay.events)).response.output_text).toBe(conforming.result.response);
  expect(await conforming.total()).toBe(4);

  const mutant = await continuationDropped({ mutant: "undelivered-stream-reruns" });
  const rerun = await streamResponse(mutant.fake.url, mutant.dropped);
  expect(rerun.headers["idempotent-replayed"]).toBeUndefined();
  expect(completedOf(parseStream(rerun.events)).response.conversation_id).toBe(mutant.result.conversation_id);
  expect(await mutant.total()).toBe(6);
  // The rerun was delivered: from now on the key replays.
  const later = await streamResponse(mutant.fake.url, mutant.dropped);
  expect(later.headers["idempotent-replayed"]).toBe("true");
  expect(await mutant.total()).toBe(6);
});

test("undelivered-stream-reruns: a dropped new conversation's key starts another conversation on the stream", async () => {
  const steps = async (options: FakeServerOptions) => {
    const fake = await fakeServer(options);
    const dropped = { idempotencyKey: "new", body: { message: EXPORT } };
    const first = await droppedAfterCreated(fake, dropped);
    return {
      first,
      again: completedOf(parseStream((await streamResponse(fake.url, dropped)).events)).response.conversation_id,
    };
  };
  const conforming = await steps({});
  expect(conforming.again).toBe(conforming.first);
  const mutant = await steps({ mutant: "undelivered-stream-reruns" });
  expect(mutant.again).not.toBe(mutant.first);
});

test("dropped-stream-lock-kept (IDEM-4): every stream under a dropped stream's key is 409 in use, for good", async () => {
  const conforming = await continuationDropped({});
  expect((await streamResponse(conforming.fake.url, conforming.dropped)).headers["idempotent-replayed"]).toBe("true");

  const mutant = await continuationDropped({ mutant: "dropped-stream-lock-kept" });
  for (let attempt = 0; attempt < 2; attempt++) {
    const refused = await streamResponse(mutant.fake.url, mutant.dropped);
    expectError(refused, 409, "idempotency_key_in_use");
    expect(refused.headers["retry-after"]).toBe("1");
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  expect(await mutant.total()).toBe(4);
  // A stream its client read to the end keeps a working key.
  const watched = { idempotencyKey: "watched", body: { message: EXPORT } };
  completedOf(parseStream((await streamResponse(mutant.fake.url, watched)).events));
  expect((await streamResponse(mutant.fake.url, watched)).headers["idempotent-replayed"]).toBe("true");
});

test("answer-lost-when-client-leaves (SSE-8): a dropped stream is listed as its question alone, and replays answer in full", async () => {
  const steps = async (options: FakeServerOptions) => {
    const fake = await fakeServer(options);
    const { conversation_id } = expectResult(await createResponse(fake.url, { body: { message: EXPORT } }));
    const dropped = { idempotencyKey: "dropped", body: { message: REMINDERS, conversation_id } };
    await droppedAfterCreated(fake, dropped);
    const page = expectPage(await listMessages(fake.url, conversation_id));
    const replay = await streamResponse(fake.url, dropped);
    return {
      roles: page.items.map((item) => (item as { role: string }).role),
      replayed: replay.headers["idempotent-replayed"],
      answer: completedOf(parseStream(replay.events)).response.output_text,
    };
  };
  const conforming = await steps({});
  expect(conforming.roles).toEqual(["user", "assistant", "user", "assistant"]);
  const mutant = await steps({ mutant: "answer-lost-when-client-leaves" });
  expect(mutant.roles).toEqual(["user", "assistant", "user"]);
  expect(mutant.replayed).toBe("true");
  expect(mutant.answer).toBe(conforming.answer);
});
