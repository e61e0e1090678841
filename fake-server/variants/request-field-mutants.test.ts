/**
 * The interaction mutants of request fields and parameters: external_reference taken for a key,
 * shapes the spec allows refused, a body that stands in for the API key, the page size bound.
 * Each scenario runs on the conforming fake and on the mutant, and only the mutant gets it wrong.
 */
import { expect, test } from "vitest";
import { MessagePage } from "../../schemas/index.ts";
import type { FakeServerOptions } from "../options.ts";
import { createResponse, deleteConversation, listMessages, streamResponse } from "../test-support/client.ts";
import { completedOf, parseStream } from "../test-support/events.ts";
import { expectError, expectPage, expectResult } from "../test-support/expect.ts";
import { fakeServer } from "../test-support/server.ts";

const EXPORT = "How do I export my data?";
const REMINDERS = "How do reminders work?";

test("external-reference-reopens (RESP-3): a new conversation with a used external_reference continues the earlier one", async () => {
  const steps = async (options: FakeServerOptions) => {
    const fake = await fakeServer(options);
    const first = expectResult(
      await createResponse(fake.url, { body: { message: EXPORT, external_reference: "order-1" } }),
    );
    const plain = expectResult(
      await createResponse(fake.url, { body: { message: REMINDERS, external_reference: "order-1" } }),
    );
    const streamed = completedOf(
      parseStream(
        (await streamResponse(fake.url, { body: { message: "And on my phone?", external_reference: "order-1" } }))
          .events,
      ),
    ).response;
    // Another channel, another reference, or none never meet it, on the mutant too.
    const others = [
      expectResult(
        await createResponse(fake.url, { key: "sk-fake-b", body: { message: EXPORT, external_reference: "order-1" } }),
      ),
      expectResult(await createResponse(fake.url, { body: { message: EXPORT, external_reference: "order-2" } })),
      expectResult(await createResponse(fake.url, { body: { message: EXPORT, external_reference: null } })),
    ];
    expect(others.map((o) => o.conversation_id)).not.toContain(first.conversation_id);
    const total = expectPage(await listMessages(fake.url, first.conversation_id)).total;
    // A deleted conversation is not found again.
    expect((await deleteConversation(fake.url, first.conversation_id)).status).toBe(204);
    const afterDelete = expectResult(
      await createResponse(fake.url, { body: { message: EXPORT, external_reference: "order-1" } }),
    );
    expect(afterDelete.conversation_id).not.toBe(first.conversation_id);
    return { first: first.conversation_id, plain: plain.conversation_id, streamed: streamed.conversation_id, total };
  };
  const conforming = await steps({});
  expect(new Set([conforming.first, conforming.plain, conforming.streamed]).size).toBe(3);
  expect(conforming.total).toBe(2);
  const mutant = await steps({ mutant: "external-reference-reopens" });
  expect([mutant.plain, mutant.streamed]).toEqual([mutant.first, mutant.first]);
  expect(mutant.total).toBe(6);
});

test("empty-metadata-refused (RESP-6): metadata {} is refused on both endpoints; absent or non-empty metadata is accepted", async () => {
  const conforming = await fakeServer();
  expectResult(await createResponse(conforming.url, { body: { message: EXPORT, metadata: {} } }));
  expect(
    completedOf(parseStream((await streamResponse(conforming.url, { body: { message: EXPORT, metadata: {} } })).events))
      .response.output_text,
  ).not.toBe("");

  const mutant = await fakeServer({ mutant: "empty-metadata-refused" });
  expectError(await createResponse(mutant.url, { body: { message: EXPORT, metadata: {} } }), 400, "invalid_metadata");
  expectError(await streamResponse(mutant.url, { body: { message: EXPORT, metadata: {} } }), 400, "invalid_metadata");
  expectResult(await createResponse(mutant.url, { body: { message: EXPORT, metadata: { source: "web" } } }));
  expectResult(await createResponse(mutant.url, { body: { message: EXPORT } }));
});

test("stream-null-reference-refused (RESP-6): the stream refuses external_reference null; the plain endpoint accepts it", async () => {
  const body = { message: EXPORT, external_reference: null };
  const conforming = await fakeServer();
  expectResult(await createResponse(conforming.url, { body }));
  expect((await streamResponse(conforming.url, { body })).status).toBe(200);

  const mutant = await fakeServer({ mutant: "stream-null-reference-refused" });
  expectError(await streamResponse(mutant.url, { body }), 400, "invalid_request");
  expectResult(await createResponse(mutant.url, { body }));
  completedOf(
    parseStream(
      (await streamResponse(mutant.url, { body: { message: EXPORT, external_reference: "order-1" } })).events,
    ),
  );
  completedOf(parseStream((await streamResponse(mutant.url, { body: { message: EXPORT } })).events));
});

test("stream-auth-by-conversation (AUTH-1): a stream without a valid key is served when its body names a conversation", async () => {
  const steps = async (options: FakeServerOptions) => {
    const fake = await fakeServer(options);
    const { conversation_id } = expectResult(await createResponse(fake.url, { body: { message: EXPORT } }));
    const continuing = { message: REMINDERS, conversation_id };
    // Without a conversation to name, and on the plain endpoint, the key check stands on the mutant too.
    expectError(await streamResponse(fake.url, { key: null, body: { message: REMINDERS } }), 401, "unauthorized");
    expectError(await streamResponse(fake.url, { key: "sk-unknown", rawBody: "{not json" }), 401, "unauthorized");
    expectError(await createResponse(fake.url, { key: null, body: continuing }), 401, "unauthorized");
    const answers = [
      await streamResponse(fake.url, { key: null, body: continuing }),
      await streamResponse(fake.url, { key: "sk-unknown", body: continuing }),
    ];
    return { answers, total: expectPage(await listMessages(fake.url, conversation_id)).total };
  };
  const conforming = await steps({});
  for (const answer of conforming.answers) expectError(answer, 401, "unauthorized");
  expect(conforming.total).toBe(2);
  const mutant = await steps({ mutant: "stream-auth-by-conversation" });
  for (const answer of mutant.answers) expect(answer.status).toBe(200);
  expect(mutant.total).toBe(6);
});

test("page-size-100-as-99 (LIST-5): page_size=100 is served and echoed as 99; other sizes are right", async () => {
  const steps = async (options: FakeServerOptions) => {
    const fake = await fakeServer(options);
    const conversation = fake.app.internals.conversations.seed("agent-a", "web", 60);
    const list = async (query: string) =>
      MessagePage.parse((await listMessages(fake.url, conversation.id, { query })).json);
    const others = [await list("page_size=99"), await list("page=2&page_size=50")];
    expect(others.map((p) => [p.page_size, p.items.length])).toEqual([
      [99, 99],
      [50, 50],
    ]);
    expectError(await listMessages(fake.url, conversation.id, { query: "page_size=101" }), 400, "invalid_pagination");
    return [await list("page_size=100"), await list("page=2&page_size=100")];
  };
  const [first, second] = await steps({});
  expect([first?.page_size, first?.items.length, first?.has_more, second?.items.length]).toEqual([100, 100, true, 20]);
  const [mutantFirst, mutantSecond] = await steps({ mutant: "page-size-100-as-99" });
  expect([
    mutantFirst?.page_size,
    mutantFirst?.items.length,
    mutantFirst?.has_more,
    mutantSecond?.items.length,
  ]).toEqual([99, 99, true, 21]);
});
