/**
 * Each variant really makes its other choice on the wire (a variant that changed nothing would
 * make the gate's "the suite passes every variant" hollow). The gate then proves the suite
 * accepts every one of them.
 */
import type { ServerResponse } from "node:http";
import { expect, test } from "vitest";
import { errorCode, SpecMessagePage, SpecResponseResult } from "../../schemas/index.ts";
import { DEFAULT_BEHAVIOR, patchBehavior } from "../behavior/behavior.ts";
import { ManualClock } from "../test-support/manual-clock.ts";
import { formatOffsetMicroseconds } from "../conversations/offset-timestamp.ts";
import { writeEvent } from "../http/sse.ts";
import { selectBehavior } from "./variants.ts";
import { createResponse, deleteConversation, listMessages, streamResponse } from "../test-support/client.ts";
import { fakeServer } from "../test-support/server.ts";

const UNKNOWN = "0b7c6f4e-1d2a-4c3b-9e8f-7a6b5c4d3e2f";

async function started(variants: string[]) {
  const fake = await fakeServer({ variants });
  const result = SpecResponseResult.parse((await createResponse(fake.url)).json);
  return { fake, conversationId: result.conversation_id };
}

test("created-201: both create operations answer 201", async () => {
  const fake = await fakeServer({ variants: ["created-201"] });
  expect((await createResponse(fake.url)).status).toBe(201);
  expect((await streamResponse(fake.url)).status).toBe(201);
});

test("problem-json: errors are RFC 9457 problem details whose type ends in the code", async () => {
  const fake = await fakeServer({ variants: ["problem-json"] });
  const reply = await listMessages(fake.url, UNKNOWN);
  expect(reply.status).toBe(404);
  expect(reply.headers["content-type"]).toBe("application/problem+json");
  expect(reply.json).toMatchObject({
    title: "conversation not found",
    status: 404,
    detail: expect.stringContaining(UNKNOWN),
  });
  expect((reply.json as { type: string }).type).toMatch(/^https:\/\/.+\/conversation_not_found$/);
  expect(errorCode(reply.json)).toBe("conversation_not_found");
});

test("flat-errors: errors are {code, message} at the top level", async () => {
  const fake = await fakeServer({ variants: ["flat-errors"] });
  const reply = await createResponse(fake.url, { key: null });
  expect(reply.json).toEqual({ code: "unauthorized", message: expect.any(String) });
});

test("fastapi-errors: errors are FastAPI's {detail: {code, message}}", async () => {
  const fake = await fakeServer({ variants: ["fastapi-errors"] });
  const reply = await listMessages(fake.url, UNKNOWN);
  expect(reply.status).toBe(404);
  expect(reply.headers["content-type"]).toBe("application/json");
  expect(reply.json).toEqual({ detail: { code: "conversation_not_found", message: expect.stringContaining(UNKNOWN) } });
  expect((await createResponse(fake.url, { key: null })).json).toEqual({
    detail: { code: "unauthorized", message: expect.any(String) },
  });
});

test("jsonapi-errors: errors are a JSON:API document with the status as a string", async () => {
  const fake = await fakeServer({ variants: ["jsonapi-errors"] });
  const reply = await createResponse(fake.url, { body: { message: 42 } });
  expect(reply.status).toBe(400);
  expect(reply.headers["content-type"]).toBe("application/vnd.api+json");
  expect(reply.json).toEqual({
    errors: [
      { status: "400", code: "invalid_request", title: "invalid request", detail: expect.stringContaining("message") },
    ],
  });
  expect((await listMessages(fake.url, UNKNOWN)).json).toMatchObject({
    errors: [{ status: "404", code: "conversation_not_found" }],
  });
});

test("the error variants answer the same gap: none combines with another, and `all` keeps problem-json", () => {
  for (const [a, b] of [
    ["fastapi-errors", "jsonapi-errors"],
    ["fastapi-errors", "flat-errors"],
    ["jsonapi-errors", "problem-json"],
  ]) {
    expect(() => selectBehavior(undefined, [a ?? "", b ?? ""])).toThrow("both choose errorFormat");
  }
  expect(selectBehavior(undefined, ["all"]).errorFormat).toBe("problem");
});

test("microsecond-timestamps: RFC 3339 with six fraction digits and +01:00, the instant of the exchange", async () => {
  const clock = new ManualClock(Date.UTC(2026, 10, 23, 23, 30, 0, 5));
  const fake = await fakeServer({ variants: ["microsecond-timestamps"] }, { clock });
  const { conversation_id: id } = SpecResponseResult.parse((await createResponse(fake.url)).json);
  clock.advance(1_000);
  await createResponse(fake.url, { body: { message: "And then?", conversation_id: id } });
  const page = SpecMessagePage.parse((await listMessages(fake.url, id)).json);
  // 23:30 UTC is 00:30 the next day at +01:00.
  expect(page.conversation.created_at).toBe("2026-11-24T00:30:00.005158+01:00");
  expect(page.conversation.updated_at).toBe("2026-11-24T00:30:01.005158+01:00");
  const stamps = page.items.map((item) => (item as { created_at: string }).created_at);
  expect(stamps).toEqual([
    page.conversation.created_at,
    page.conversation.created_at,
    page.conversation.updated_at,
    page.conversation.updated_at,
  ]);
  for (const stamp of stamps) expect(stamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}\+01:00$/);
  expect(Date.parse(String(page.conversation.updated_at))).toBe(clock.now());
});

test("microsecond-timestamps: the sub-millisecond digits keep the order of instants", () => {
  const start = Date.UTC(2026, 0, 1);
  const texts = Array.from({ length: 2_000 }, (_, i) => formatOffsetMicroseconds(start + i));
  const micros = texts.map(
    (text) =>
      Number(text.slice(11, 13)) * 3_600e6 +
      Number(text.slice(14, 16)) * 60e6 +
      Number(text.slice(17, 19)) * 1e6 +
      Number(text.slice(20, 26)),
  );
  expect(micros.every((value, i) => i === 0 || value > (micros[i - 1] ?? 0))).toBe(true);
  expect(new Set(texts.map((text) => text.slice(23, 26))).size).toBeGreaterThan(100);
});

test("uuid-v7: conversation and message ids are UUIDv7, in the order they were minted", async () => {
  const fake = await fakeServer({ variants: ["uuid-v7"] });
  const first = SpecResponseResult.parse((await createResponse(fake.url)).json).conversation_id;
  const second = SpecResponseResult.parse((await createResponse(fake.url)).json).conversation_id;
  const items = SpecMessagePage.parse((await listMessages(fake.url, second)).json).items.map(
    (item) => (item as { id: string }).id,
  );
  const ids = [first, second, ...items];
  for (const id of ids) expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  expect([...ids].sort()).toEqual(ids);
});

test("heartbeats, crlf and event-ids change only the framing of the events", async () => {
  const fake = await fakeServer({ variants: ["heartbeats", "crlf", "event-ids"] });
  const reply = await streamResponse(fake.url);
  expect(
    reply.text.startsWith("retry: 3000\r\n\r\n: keep-alive\r\n\r\nevent: response.created\r\nid: 1\r\ndata: {"),
  ).toBe(true);
  expect(reply.text.replaceAll("\r\n", "")).not.toMatch(/[\r\n]/);
  expect(reply.events.map((event) => event.id)).toEqual(reply.events.map((_, i) => String(i + 1)));
  expect(reply.events.at(-1)?.event).toBe("response.completed");
});

test("split-writes: every event goes out in pieces, one cut inside a multi-byte character", () => {
  const pieces: Buffer[] = [];
  const res = {
    destroyed: false,
    writableEnded: false,
    write(piece: Buffer, done: () => void) {
      pieces.push(Buffer.from(piece));
      done();
      return true;
    },
  } as unknown as ServerResponse;
  const behavior = patchBehavior(DEFAULT_BEHAVIOR, [{ sseSplitWrites: true }]);
  return new Promise<void>((resolve) => {
    writeEvent(res, behavior, { type: "response.output_text.delta", delta: "à bientôt ☕ 👋🏽" }, () => {
      expect(pieces.length).toBeGreaterThanOrEqual(3);
      expect(Buffer.concat(pieces).toString()).toBe(
        'event: response.output_text.delta\ndata: {"type":"response.output_text.delta","delta":"à bientôt ☕ 👋🏽"}\n\n',
      );
      const cutInsideACharacter = pieces.slice(1).some((piece) => ((piece[0] ?? 0) & 0xc0) === 0x80);
      expect(cutInsideACharacter).toBe(true);
      resolve();
    });
  });
});

test("split-writes: answers end with multi-byte characters and the deltas still reassemble", async () => {
  const fake = await fakeServer({ variants: ["split-writes"] });
  const reply = await streamResponse(fake.url);
  const payloads = reply.events.map(
    (event) => JSON.parse(event.data) as { delta?: string; response?: { output_text: string } },
  );
  const text = payloads.at(-1)?.response?.output_text ?? "";
  expect(text).toMatch(/👋🏽\.$/);
  expect(payloads.flatMap((p) => (p.delta === undefined ? [] : [p.delta])).join("")).toBe(text);
});

test("three-messages: an exchange adds user, tool note and assistant", async () => {
  const { fake, conversationId } = await started(["three-messages"]);
  const page = SpecMessagePage.parse((await listMessages(fake.url, conversationId)).json);
  expect(page.total).toBe(3);
  expect(page.items.map((item) => (item as { role: string }).role)).toEqual(["user", "tool", "assistant"]);
});

test("epoch-timestamps: created_at and updated_at are whole epoch seconds", async () => {
  const before = Math.floor(Date.now() / 1000);
  const { fake, conversationId } = await started(["epoch-timestamps"]);
  const page = SpecMessagePage.parse((await listMessages(fake.url, conversationId)).json);
  expect(page.conversation.created_at).toBeGreaterThanOrEqual(before);
  expect(Number.isInteger(page.conversation.updated_at)).toBe(true);
  expect((page.items[0] as { created_at: unknown }).created_at).toBe(page.conversation.created_at);
});

test("clamp-page-size: page_size above 100 is served and echoed as 100", async () => {
  const { fake, conversationId } = await started(["clamp-page-size"]);
  for (const size of ["101", "100000"]) {
    const reply = await listMessages(fake.url, conversationId, { query: `page_size=${size}` });
    expect(reply.status).toBe(200);
    expect(SpecMessagePage.parse(reply.json).page_size).toBe(100);
  }
  expect((await listMessages(fake.url, conversationId, { query: "page_size=0" })).status).toBe(400);
});

test("delete-200: delete answers 200 with the deleted conversation", async () => {
  const { fake, conversationId } = await started(["delete-200"]);
  const reply = await deleteConversation(fake.url, conversationId);
  expect(reply.status).toBe(200);
  expect(reply.json).toEqual({ id: conversationId, created_at: expect.any(String), updated_at: expect.any(String) });
  expect((await listMessages(fake.url, conversationId)).status).toBe(404);
});

test("single-delta and no-citations: one delta, and no citations anywhere", async () => {
  const fake = await fakeServer({ variants: ["single-delta", "no-citations"] });
  const reply = await streamResponse(fake.url);
  expect(reply.events.map((event) => event.event)).toEqual([
    "response.created",
    "response.output_text.delta",
    "response.completed",
  ]);
  const result = SpecResponseResult.parse((await createResponse(fake.url)).json);
  expect(result.citations).toEqual([]);
  const page = SpecMessagePage.parse((await listMessages(fake.url, result.conversation_id)).json);
  expect(page.items.map((item) => (item as { citations?: unknown }).citations)).toEqual([undefined, []]);
});

test("extra-fields: every JSON body and event payload carries unknown fields, at every level", async () => {
  const fake = await fakeServer({ variants: ["extra-fields"] });
  const created = await createResponse(fake.url);
  expect(created.json).toMatchObject({
    x_fake_extension: "ignore me",
    citations: [expect.objectContaining({ x_fake_version: 2 })],
  });
  const { conversation_id: id } = SpecResponseResult.parse(created.json);
  const page = (await listMessages(fake.url, id)).json;
  expect(page).toMatchObject({
    x_fake_extension: "ignore me",
    conversation: { x_fake_version: 2 },
    items: [{ x_fake_version: 2 }, { x_fake_version: 2 }],
  });
  expect((await listMessages(fake.url, UNKNOWN)).json).toMatchObject({
    x_fake_extension: "ignore me",
    error: { x_fake_version: 2 },
  });
  const stream = await streamResponse(fake.url);
  for (const event of stream.events) expect(JSON.parse(event.data)).toMatchObject({ x_fake_extension: "ignore me" });
});

test("strict-keys: a key of at most 64 letters, digits, '-' and '_' is taken; a longer or punctuated one is 400 on both creates", async () => {
  const fake = await fakeServer({ variants: ["strict-keys"] });
  expect((await createResponse(fake.url, { idempotencyKey: crypto.randomUUID() })).status).toBe(200);
  expect((await createResponse(fake.url, { idempotencyKey: `k_${"a".repeat(62)}` })).status).toBe(200);
  for (const idempotencyKey of [`k_${"a".repeat(63)}`, "key/with=punctuation"]) {
    const plain = await createResponse(fake.url, { idempotencyKey });
    expect(plain.status).toBe(400);
    expect(errorCode(plain.json)).toBe("idempotency_key_invalid");
    expect((await streamResponse(fake.url, { idempotencyKey })).status).toBe(400);
  }
});

test("all: every combinable variant at once still answers a whole exchange", async () => {
  const fake = await fakeServer({ variants: ["all"] });
  const reply = await streamResponse(fake.url);
  expect(reply.status).toBe(201);
  expect(reply.text).toContain("\r\n");
  expect(reply.events.map((event) => event.event)).toEqual([
    "response.created",
    "response.output_text.delta",
    "response.completed",
  ]);
  expect((await listMessages(fake.url, UNKNOWN)).headers["content-type"]).toBe("application/problem+json");
});
