import { expect, test } from "vitest";
import { ManualClock } from "../test-support/manual-clock.ts";
import { createResponse, listMessages } from "../test-support/client.ts";
import { expectError, expectPage, expectResult } from "../test-support/expect.ts";
import { fakeServer } from "../test-support/server.ts";

test("no parameters means page 1 of 50, oldest first", async () => {
  const fake = await fakeServer();
  const { id } = fake.app.internals.conversations.seed("agent-a", "web", 30);
  const page = expectPage(await listMessages(fake.url, id));
  expect(page).toMatchObject({ page: 1, page_size: 50, total: 60, has_more: true });
  expect(page.items).toHaveLength(50);
  expect(page.items[0]).toMatchObject({ role: "user", content: "seeded question 0" });
  expect(page.items[1]).toMatchObject({ role: "assistant", content: "seeded answer 0", citations: [] });
});

test("the last page is partial, and a page past it is empty with has_more false", async () => {
  const fake = await fakeServer();
  const { id } = fake.app.internals.conversations.seed("agent-a", "web", 30);
  expect(expectPage(await listMessages(fake.url, id, { query: "page=2" }))).toMatchObject({
    page: 2,
    total: 60,
    has_more: false,
  });
  expect(expectPage(await listMessages(fake.url, id, { query: "page=2" })).items).toHaveLength(10);
  const past = expectPage(await listMessages(fake.url, id, { query: "page=3&page_size=50" }));
  expect(past).toMatchObject({ items: [], page: 3, page_size: 50, total: 60, has_more: false });
});

test("page_size 100 is the largest page", async () => {
  const fake = await fakeServer();
  const { id } = fake.app.internals.conversations.seed("agent-a", "web", 60);
  const page = expectPage(await listMessages(fake.url, id, { query: "page_size=100" }));
  expect(page.items).toHaveLength(100);
  expect(page.has_more).toBe(true);
});

test("an empty conversation lists as an empty first page", async () => {
  const fake = await fakeServer();
  const { id } = fake.app.internals.conversations.seed("agent-a", "web", 0);
  expect(expectPage(await listMessages(fake.url, id))).toMatchObject({ items: [], total: 0, has_more: false });
});

test("total counts this conversation's messages only", async () => {
  const fake = await fakeServer();
  const a = expectResult(await createResponse(fake.url));
  const b = expectResult(await createResponse(fake.url));
  expectResult(await createResponse(fake.url, { body: { message: "more", conversation_id: b.conversation_id } }));
  expect(expectPage(await listMessages(fake.url, a.conversation_id)).total).toBe(2);
  expect(expectPage(await listMessages(fake.url, b.conversation_id)).total).toBe(4);
});

test("timestamps are RFC 3339 with milliseconds, and updated_at advances with each exchange even within one millisecond", async () => {
  const clock = new ManualClock(Date.UTC(2026, 0, 2, 3, 4, 5, 678));
  const fake = await fakeServer({}, { clock });
  const { conversation_id } = expectResult(await createResponse(fake.url));
  const first = expectPage(await listMessages(fake.url, conversation_id)).conversation;
  expect(first).toEqual({
    id: conversation_id,
    created_at: "2026-01-02T03:04:05.678Z",
    updated_at: "2026-01-02T03:04:05.678Z",
  });
  expectResult(await createResponse(fake.url, { body: { message: "again", conversation_id } }));
  const second = expectPage(await listMessages(fake.url, conversation_id));
  expect(second.conversation.created_at).toBe(first.created_at);
  expect(Date.parse(second.conversation.updated_at)).toBeGreaterThan(Date.parse(first.updated_at));
  for (const item of second.items)
    expect(Date.parse(item.created_at)).toBeLessThanOrEqual(Date.parse(second.conversation.updated_at));
});

test("listing an unknown conversation is 404 conversation_not_found", async () => {
  const fake = await fakeServer();
  expectError(await listMessages(fake.url, crypto.randomUUID()), 404, "conversation_not_found");
});

test("a conversation is listed only through its own agent with a key on its own channel", async () => {
  const fake = await fakeServer({ keys: ["sk-web=agent-a,agent-b@web", "sk-sms=agent-a@sms", "sk-web2=agent-a@web"] });
  const { conversation_id } = expectResult(await createResponse(fake.url, { key: "sk-web" }));
  expectPage(await listMessages(fake.url, conversation_id, { key: "sk-web" }));
  // Another key on the same channel granting the same agent shares the scope.
  expectPage(await listMessages(fake.url, conversation_id, { key: "sk-web2" }));
  expectError(
    await listMessages(fake.url, conversation_id, { key: "sk-web", agent: "agent-b" }),
    404,
    "conversation_not_found",
  );
  expectError(await listMessages(fake.url, conversation_id, { key: "sk-sms" }), 404, "conversation_not_found");
});
