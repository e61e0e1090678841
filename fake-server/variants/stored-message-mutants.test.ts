/**
 * The interaction mutants of storage: a message column that alters what it keeps on one
 * endpoint's path, an upsert that merges the same text. The conforming fake lists every message
 * exactly as sent; only the mutant does not, and only on its endpoint.
 */
import { expect, test } from "vitest";
import { MESSAGE_COLUMN_CHARS } from "../commit/message-column.ts";
import type { FakeServerOptions } from "../options.ts";
import { createResponse, listMessages, streamResponse } from "../test-support/client.ts";
import { completedOf, parseStream } from "../test-support/events.ts";
import { expectPage, expectResult } from "../test-support/expect.ts";
import { fakeServer } from "../test-support/server.ts";

const EXPORT = "How do I export my data?";

/** The user messages a conversation lists, after one exchange per text on each endpoint. */
async function storedTexts(
  options: FakeServerOptions,
  texts: { readonly plain: string; readonly stream: string },
): Promise<string[]> {
  const fake = await fakeServer(options);
  const { conversation_id } = expectResult(await createResponse(fake.url, { body: { message: texts.plain } }));
  const streamed = await streamResponse(fake.url, { body: { message: texts.stream, conversation_id } });
  expect(completedOf(parseStream(streamed.events)).response.conversation_id).toBe(conversation_id);
  const page = expectPage(await listMessages(fake.url, conversation_id));
  return page.items.filter((item) => item.role === "user").map((item) => String(item.content));
}

test('astral-characters-as-question-marks (RESP-2): the plain path lists 4-byte characters as "?"; the stream\'s are kept', async () => {
  const text = "Export 😀 my 𝄞 data, 𠜎 and ﬁ é ع stay";
  expect(await storedTexts({}, { plain: text, stream: text })).toEqual([text, text]);
  expect(await storedTexts({ mutant: "astral-characters-as-question-marks" }, { plain: text, stream: text })).toEqual([
    "Export ? my ? data, ? and ﬁ é ع stay",
    text,
  ]);
});

test("messages-escaped-twice (RESP-2): the plain path lists quotes, backslashes and control characters as their escapes", async () => {
  const text = 'Say "hi"\n\tthen C:\\temp\u0001 done';
  expect(await storedTexts({}, { plain: text, stream: text })).toEqual([text, text]);
  expect(await storedTexts({ mutant: "messages-escaped-twice" }, { plain: text, stream: text })).toEqual([
    'Say \\"hi\\"\\n\\tthen C:\\\\temp\\u0001 done',
    text,
  ]);
  // Text without anything to escape is kept as is.
  expect(await storedTexts({ mutant: "messages-escaped-twice" }, { plain: EXPORT, stream: EXPORT })).toEqual([
    EXPORT,
    EXPORT,
  ]);
});

test("stream-messages-cut-at-1024 (SSE-8): the stream path lists a long message cut after 1,024 characters; the plain path keeps it whole", async () => {
  // Code points, not UTF-16 units: the 4-byte characters count one each, as a MySQL column counts them.
  const long = `${"𝄞".repeat(10)}${"a".repeat(1500)}`;
  expect(Array.from(long).length).toBeGreaterThan(MESSAGE_COLUMN_CHARS);
  expect(await storedTexts({}, { plain: long, stream: long })).toEqual([long, long]);
  const [plain, stream] = await storedTexts({ mutant: "stream-messages-cut-at-1024" }, { plain: long, stream: long });
  expect(plain).toBe(long);
  expect(stream).toBe(`${"𝄞".repeat(10)}${"a".repeat(MESSAGE_COLUMN_CHARS - 10)}`);
  // Up to the limit nothing is lost.
  const exact = "b".repeat(MESSAGE_COLUMN_CHARS);
  expect(await storedTexts({ mutant: "stream-messages-cut-at-1024" }, { plain: EXPORT, stream: exact })).toEqual([
    EXPORT,
    exact,
  ]);
});

test("same-text-merged (RESP-2): a plain continuation repeating a text is answered but only moves updated_at", async () => {
  const steps = async (options: FakeServerOptions) => {
    const fake = await fakeServer(options);
    const { conversation_id } = expectResult(await createResponse(fake.url, { body: { message: EXPORT } }));
    const page = async () => expectPage(await listMessages(fake.url, conversation_id));
    const before = await page();
    const again = expectResult(await createResponse(fake.url, { body: { message: EXPORT, conversation_id } }));
    expect(again.conversation_id).toBe(conversation_id);
    const afterPlain = await page();
    expect(Date.parse(afterPlain.conversation.updated_at)).toBeGreaterThan(Date.parse(before.conversation.updated_at));
    // The stream appends the same text as usual, on the mutant too.
    completedOf(parseStream((await streamResponse(fake.url, { body: { message: EXPORT, conversation_id } })).events));
    return { afterPlain: afterPlain.total, afterStream: (await page()).total };
  };
  expect(await steps({})).toEqual({ afterPlain: 4, afterStream: 6 });
  expect(await steps({ mutant: "same-text-merged" })).toEqual({ afterPlain: 2, afterStream: 4 });
});
