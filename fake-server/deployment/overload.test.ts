import { expect, test } from "vitest";
import { createResponse, listMessages, streamResponse } from "../test-support/client.ts";
import { expectError, expectPage, expectResult } from "../test-support/expect.ts";
import { fakeServer } from "../test-support/server.ts";
import { OVERLOAD_EVERY } from "./overload.ts";

test("overloaded: every Nth create of a key is 503 service_unavailable with Retry-After: 1, and stores nothing", async () => {
  const fake = await fakeServer({ variants: ["overloaded"] });
  const { conversation_id } = expectResult(await createResponse(fake.url));
  for (let i = 2; i < OVERLOAD_EVERY; i++)
    expectResult(await createResponse(fake.url, { body: { message: `more ${i}`, conversation_id } }));
  const before = fake.app.internals.snapshot();
  const refused = await createResponse(fake.url, {
    idempotencyKey: "retry-me",
    body: { message: "and more", conversation_id },
  });
  expectError(refused, 503, "service_unavailable");
  expect(refused.headers["retry-after"]).toBe("1");
  expect(fake.app.internals.snapshot()).toEqual(before);
  // The retry under the same key is the next create: it runs, once.
  const retried = await createResponse(fake.url, {
    idempotencyKey: "retry-me",
    body: { message: "and more", conversation_id },
  });
  expectResult(retried);
  expect(retried.headers["idempotent-replayed"]).toBeUndefined();
  expect(expectPage(await listMessages(fake.url, conversation_id)).total).toBe(2 * OVERLOAD_EVERY);
});

test("overloaded: streams count as creates and are refused as plain JSON before any event; keys count apart", async () => {
  const fake = await fakeServer({ variants: ["overloaded"] });
  for (let i = 1; i < OVERLOAD_EVERY; i++) expect((await streamResponse(fake.url)).status).toBe(200);
  expectResult(await createResponse(fake.url, { key: "sk-fake-b" }));
  const refused = await streamResponse(fake.url);
  expectError(refused, 503, "service_unavailable");
  expect(refused.events).toEqual([]);
  // Listings and deletes are never overloaded, and the count goes on.
  expect((await listMessages(fake.url, crypto.randomUUID())).status).toBe(404);
  expect((await streamResponse(fake.url)).status).toBe(200);
});

test("without the variant no create is ever overloaded", async () => {
  const fake = await fakeServer();
  for (let i = 0; i < 2 * OVERLOAD_EVERY; i++) expectResult(await createResponse(fake.url));
});
