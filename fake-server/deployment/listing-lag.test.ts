import { expect, test } from "vitest";
import { ManualClock } from "../test-support/manual-clock.ts";
import { createResponse, deleteConversation, listMessages, streamResponse } from "../test-support/client.ts";
import { expectError, expectPage, expectResult } from "../test-support/expect.ts";
import { fakeServer } from "../test-support/server.ts";
import { LISTING_LAG_MS } from "./listing-lag.ts";

async function lagging() {
  const clock = new ManualClock();
  const fake = await fakeServer({ variants: ["listing-lag"] }, { clock });
  return { fake, clock };
}

test("listing-lag: a new conversation is not listed until its first exchange lands; continuing it works at once", async () => {
  const { fake, clock } = await lagging();
  const { conversation_id: id } = expectResult(await createResponse(fake.url));
  expectError(await listMessages(fake.url, id), 404, "conversation_not_found");
  const continued = expectResult(
    await createResponse(fake.url, { body: { message: "And reminders?", conversation_id: id } }),
  );
  expect(continued.conversation_id).toBe(id);
  clock.advance(LISTING_LAG_MS - 1);
  expectError(await listMessages(fake.url, id), 404, "conversation_not_found");
  clock.advance(1);
  // The first exchange is listed; the continuation, stored 1 ms later, is not yet.
  const first = expectPage(await listMessages(fake.url, id));
  expect(first).toMatchObject({ total: 2, has_more: false });
  expect(first.items.map((item) => item.role)).toEqual(["user", "assistant"]);
  expect(first.conversation.updated_at).toBe(first.conversation.created_at);
  clock.advance(1);
  const both = expectPage(await listMessages(fake.url, id));
  expect(both.total).toBe(4);
  expect(both.items.slice(0, 2)).toEqual(first.items);
  expect(Date.parse(both.conversation.updated_at) - Date.parse(first.conversation.updated_at)).toBe(1);
  // Pages follow the listed total, not the stored one.
  expect(expectPage(await listMessages(fake.url, id, { query: "page=2&page_size=3" })).items).toHaveLength(1);
});

test("listing-lag: a streamed exchange lags the same way; replaying and deleting work at once", async () => {
  const { fake, clock } = await lagging();
  const stream = await streamResponse(fake.url, { idempotencyKey: "s-1" });
  const id = (JSON.parse(stream.events.at(-1)?.data ?? "{}") as { response: { conversation_id: string } }).response
    .conversation_id;
  expectError(await listMessages(fake.url, id), 404, "conversation_not_found");
  const replay = await createResponse(fake.url, { idempotencyKey: "s-1" });
  expect(expectResult(replay).conversation_id).toBe(id);
  expect(replay.headers["idempotent-replayed"]).toBe("true");
  clock.advance(LISTING_LAG_MS);
  expect(expectPage(await listMessages(fake.url, id)).total).toBe(2);
  const fresh = expectResult(await createResponse(fake.url));
  expect((await deleteConversation(fake.url, fresh.conversation_id)).status).toBe(204);
  clock.advance(LISTING_LAG_MS);
  expectError(await listMessages(fake.url, fresh.conversation_id), 404, "conversation_not_found");
});

test("listing-lag runs on the real clock: the exchange is listed about 300 ms after the create answered", async () => {
  const fake = await fakeServer({ variants: ["listing-lag"] });
  const { conversation_id: id } = expectResult(await createResponse(fake.url));
  const answered = Date.now();
  expect((await listMessages(fake.url, id)).status).toBe(404);
  await new Promise((resolve) => setTimeout(resolve, LISTING_LAG_MS + 50 - (Date.now() - answered)));
  expect(expectPage(await listMessages(fake.url, id)).total).toBe(2);
});

test("listing-lag: a deleted conversation stays listed, whole, for the lag, to its owner only; a second delete and continuing see it gone at once", async () => {
  const { fake, clock } = await lagging();
  const { conversation_id: id } = expectResult(await createResponse(fake.url));
  clock.advance(LISTING_LAG_MS);
  const before = expectPage(await listMessages(fake.url, id));
  expect((await deleteConversation(fake.url, id)).status).toBe(204);
  expect(expectPage(await listMessages(fake.url, id))).toEqual(before);
  // Another key's scope never saw it, and does not now.
  expectError(await listMessages(fake.url, id, { key: "sk-fake-b" }), 404, "conversation_not_found");
  expectError(await deleteConversation(fake.url, id), 404, "conversation_not_found");
  expectError(
    await createResponse(fake.url, { body: { message: "Still there?", conversation_id: id } }),
    404,
    "conversation_not_found",
  );
  clock.advance(LISTING_LAG_MS - 1);
  expect(expectPage(await listMessages(fake.url, id)).total).toBe(2);
  clock.advance(1);
  expectError(await listMessages(fake.url, id), 404, "conversation_not_found");
});
