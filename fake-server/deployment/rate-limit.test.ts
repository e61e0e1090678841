import { expect, test } from "vitest";
import { ManualClock } from "../test-support/manual-clock.ts";
import { createResponse, listMessages, streamResponse } from "../test-support/client.ts";
import { expectError, expectResult } from "../test-support/expect.ts";
import { fakeServer } from "../test-support/server.ts";
import { RATE_LIMIT, TokenBuckets } from "./rate-limit.ts";

const UNKNOWN = "0b7c6f4e-1d2a-4c3b-9e8f-7a6b5c4d3e2f";

/** A rate-limited fake whose clock only moves when told, with the first key's bucket emptied by listings. */
async function drained() {
  const clock = new ManualClock();
  const fake = await fakeServer({ variants: ["rate-limited"] }, { clock });
  for (let i = 0; i < RATE_LIMIT.capacity; i++) expect((await listMessages(fake.url, UNKNOWN)).status).toBe(404);
  return { fake, clock };
}

test("rate-limited: a burst up to the capacity is served; then every operation is 429 rate_limited with Retry-After: 1", async () => {
  const { fake } = await drained();
  for (const reply of [
    await listMessages(fake.url, UNKNOWN),
    await createResponse(fake.url),
    await streamResponse(fake.url),
  ]) {
    expect(expectError(reply, 429, "rate_limited").error.message).toContain("retry after 1 s");
    expect(reply.headers["retry-after"]).toBe("1");
  }
});

test("rate-limited: a refused create takes nothing, neither a token, its key, nor a conversation", async () => {
  const { fake, clock } = await drained();
  const before = fake.app.internals.snapshot();
  expect((await createResponse(fake.url, { idempotencyKey: "order-1" })).status).toBe(429);
  expect((await createResponse(fake.url, { idempotencyKey: "order-1" })).status).toBe(429);
  expect(fake.app.internals.snapshot()).toEqual(before);
  // One token back: exactly one request is served, and the key runs as new.
  clock.advance(Math.ceil(1000 / RATE_LIMIT.refillPerSecond));
  const served = await createResponse(fake.url, { idempotencyKey: "order-1" });
  expectResult(served);
  expect(served.headers["idempotent-replayed"]).toBeUndefined();
  expect((await listMessages(fake.url, UNKNOWN)).status).toBe(429);
});

test("rate-limited: each API key has its own bucket, and requests without a valid key take no token", async () => {
  const { fake } = await drained();
  expect((await listMessages(fake.url, UNKNOWN, { key: "sk-fake-b" })).status).toBe(404);
  expect((await listMessages(fake.url, UNKNOWN, { key: null })).status).toBe(401);
  fake.reset();
  expect((await listMessages(fake.url, UNKNOWN)).status).toBe(404);
});

test("Retry-After is the whole seconds until a token is back, at least 1", () => {
  const clock = new ManualClock();
  const buckets = new TokenBuckets({ capacity: 2, refillPerSecond: 0.25 }, clock);
  expect(buckets.take("k")).toBeUndefined();
  expect(buckets.take("k")).toBeUndefined();
  expect(buckets.take("k")?.headers).toEqual({ "Retry-After": "4" });
  clock.advance(3_000);
  expect(buckets.take("k")?.headers).toEqual({ "Retry-After": "1" });
  clock.advance(1_000);
  expect(buckets.take("k")).toBeUndefined();
  // The bucket never holds more than its capacity, however long it rested.
  clock.advance(3_600_000);
  expect([buckets.take("k"), buckets.take("k"), buckets.take("k")].map((refusal) => refusal?.status)).toEqual([
    undefined,
    undefined,
    429,
  ]);
});
