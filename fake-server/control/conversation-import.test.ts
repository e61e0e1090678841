import { expect, test } from "vitest";
import { Health } from "../request-log/schemas.ts";
import { createResponse, deleteConversation, listMessages } from "../test-support/client.ts";
import { expectError, expectPage, expectResult } from "../test-support/expect.ts";
import { fakeServer } from "../test-support/server.ts";
import { control } from "../test-support/control-client.ts";

const messages = (count: number) =>
  Array.from({ length: count }, (_, i) => ({ role: i % 2 === 0 ? "user" : "assistant", content: `message ${i}` }));

async function imported(url: string, body: unknown, session?: string): Promise<string> {
  const reply = await control(url, "POST", "/__fake/conversations", body, session);
  expect(reply.status, reply.text).toBe(201);
  return (reply.json as { conversation_id: string }).conversation_id;
}

test("250 messages in one call: listed page by page, continued after them, deleted like any other", async () => {
  const fake = await fakeServer();
  const id = await imported(fake.url, { agent: "agent-a", messages: messages(250) });
  const pages = await Promise.all(
    [1, 2, 3, 4].map(async (page) =>
      expectPage(await listMessages(fake.url, id, { query: `page=${page}&page_size=100` })),
    ),
  );
  expect(pages.map((page) => [page.items.length, page.total, page.has_more])).toEqual([
    [100, 250, true],
    [100, 250, true],
    [50, 250, false],
    [0, 250, false],
  ]);
  expect(pages.flatMap((page) => page.items.map((item) => item.content))).toEqual(messages(250).map((m) => m.content));
  expectResult(await createResponse(fake.url, { body: { message: "and one more", conversation_id: id } }));
  const last = expectPage(await listMessages(fake.url, id, { query: "page=3&page_size=100" }));
  expect(last.total).toBe(252);
  expect(last.items.at(-2)?.content).toBe("and one more");
  expect((await deleteConversation(fake.url, id)).status).toBe(204);
  expectError(await listMessages(fake.url, id), 404, "conversation_not_found");
});

test("the scope: the channel given, the channel of api_key, or the first key granting the agent", async () => {
  const fake = await fakeServer();
  const byDefault = await imported(fake.url, { agent: "agent-a", messages: messages(2) });
  const bySms = await imported(fake.url, { agent: "agent-a", channel: "sms", messages: messages(2) });
  const byKey = await imported(fake.url, { agent: "agent-a", api_key: "sk-fake-b", messages: messages(2) });
  expect((await listMessages(fake.url, byDefault)).status).toBe(200); // sk-fake-a: agent-a on web
  expectError(await listMessages(fake.url, byDefault, { key: "sk-fake-b" }), 404, "conversation_not_found");
  for (const id of [bySms, byKey]) {
    expect((await listMessages(fake.url, id, { key: "sk-fake-b" })).status).toBe(200);
    expectError(await listMessages(fake.url, id), 404, "conversation_not_found");
  }
});

test("an id and created_at are kept; the export gives the same shape back, and imports again elsewhere", async () => {
  const fake = await fakeServer();
  const id = "0b6c2a55-4a4b-4c8e-9a52-6f1d1f3c1a01";
  const body = {
    agent: "agent-b",
    channel: "web",
    id,
    messages: [
      { role: "user", content: "hello", created_at: "2026-01-02T03:04:05.000Z" },
      {
        role: "assistant",
        content: "hi",
        citations: [{ document_id: "d", title: "t", url: "https://x.example/", snippet: "s" }],
        created_at: "2026-01-02T03:04:06.500Z",
      },
    ],
  };
  expect(await imported(fake.url, body)).toBe(id);
  const page = expectPage(await listMessages(fake.url, id, { agent: "agent-b" }));
  expect(page.conversation.created_at).toBe("2026-01-02T03:04:05.000Z");
  expect(page.items.map((item) => item.created_at)).toEqual(["2026-01-02T03:04:05.000Z", "2026-01-02T03:04:06.500Z"]);
  // The export adds each message's id, so a copy keeps them too.
  const exported = await control(fake.url, "GET", `/__fake/conversations/${id}`);
  const ids = page.items.map((item) => item.id);
  expect(exported.json).toEqual({ ...body, messages: body.messages.map((message, i) => ({ id: ids[i], ...message })) });
  expect(await imported(fake.url, exported.json, "copy")).toBe(id);
  expect((await control(fake.url, "GET", `/__fake/conversations/${id}`, undefined, "copy")).json).toEqual(
    exported.json,
  );
  expectError(await control(fake.url, "POST", "/__fake/conversations", body), 409, "conversation_exists");
  expectError(
    await control(fake.url, "GET", `/__fake/conversations/${crypto.randomUUID()}`),
    404,
    "conversation_not_found",
  );
});

test.each([
  ["malformed JSON", '{"agent":', "JSON"],
  ["an unknown field", { agent: "agent-a", messages: [], colour: "red" }, "colour"],
  [
    "an unknown message field",
    { agent: "agent-a", messages: [{ role: "user", content: "x", mood: "happy" }] },
    "messages.0.mood",
  ],
  ["a role outside the spec", { agent: "agent-a", messages: [{ role: "system", content: "x" }] }, "messages.0.role"],
  ["an id that is not a UUID", { agent: "agent-a", id: "conv-1", messages: [] }, "id"],
  [
    "created_at going back",
    {
      agent: "agent-a",
      messages: [
        { role: "user", content: "a", created_at: "2026-01-02T00:00:01Z" },
        { role: "assistant", content: "b", created_at: "2026-01-02T00:00:00Z" },
      ],
    },
    "messages.1.created_at",
  ],
  [
    "a created_at that is not RFC 3339",
    { agent: "agent-a", messages: [{ role: "user", content: "a", created_at: "yesterday" }] },
    "messages.0.created_at",
  ],
  [
    "citations on a user message",
    { agent: "agent-a", messages: [{ role: "user", content: "a", citations: [] }] },
    "messages.0.citations",
  ],
  ["an agent no key grants", { agent: "agent-z", messages: [] }, "agent-z"],
  ["a channel no key reaches for the agent", { agent: "agent-b", channel: "sms", messages: [] }, "channel"],
  ["an unknown api_key", { agent: "agent-a", api_key: "sk-nope", messages: [] }, "api_key"],
  [
    "both channel and api_key",
    { agent: "agent-a", channel: "web", api_key: "sk-fake-a", messages: [] },
    "channel or api_key",
  ],
])("%s is refused naming the problem, and nothing is stored", async (_, body, named) => {
  const fake = await fakeServer();
  const reply = await control(fake.url, "POST", "/__fake/conversations", body);
  expect(reply.status).toBe(400);
  expect(reply.text).toContain(named);
  expect(Health.parse((await control(fake.url, "GET", "/__fake/health")).json)).toMatchObject({
    conversations: 0,
    messages: 0,
  });
});

test("past maxConversations the oldest conversation of the session goes", async () => {
  const fake = await fakeServer({ maxConversations: 2 });
  const first = expectResult(await createResponse(fake.url)).conversation_id;
  const second = await imported(fake.url, { agent: "agent-a", messages: messages(2) });
  const third = expectResult(await createResponse(fake.url)).conversation_id;
  expectError(await listMessages(fake.url, first), 404, "conversation_not_found");
  expect((await listMessages(fake.url, second)).status).toBe(200);
  expect((await listMessages(fake.url, third)).status).toBe(200);
  expect(Health.parse((await control(fake.url, "GET", "/__fake/health")).json)).toMatchObject({
    conversations: 2,
    messages: 4,
  });
});
