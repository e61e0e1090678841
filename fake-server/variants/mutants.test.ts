/**
 * The newer mutants against the running fake: each shows the one broken behaviour it claims,
 * next to the conforming answer of the fake it is built on.
 */
import { expect, test } from "vitest";
import { ManualClock } from "../test-support/manual-clock.ts";
import { LISTING_LAG_MS } from "../deployment/listing-lag.ts";
import { OVERLOAD_EVERY } from "../deployment/overload.ts";
import type { FakeServerOptions } from "../options.ts";
import { createResponse, listMessages } from "../test-support/client.ts";
import { expectError, expectPage, expectResult } from "../test-support/expect.ts";
import { fakeServer } from "../test-support/server.ts";

test("validation-consumes-key (RESP-4): a refused body still holds its key, so the valid request under it is 409", async () => {
  const steps = async (options: FakeServerOptions) => {
    const fake = await fakeServer(options);
    expectError(
      await createResponse(fake.url, { idempotencyKey: "k", body: { conversation_id: null } }),
      400,
      "invalid_request",
    );
    return createResponse(fake.url, { idempotencyKey: "k" });
  };
  expectResult(await steps({}));
  expectError(await steps({ mutant: "validation-consumes-key" }), 409, "idempotency_key_reused");
});

/** A conversation continued until one create is overloaded, that create retried under its key; the listed total. */
async function overloadedContinuation(options: FakeServerOptions) {
  const fake = await fakeServer(options);
  const { conversation_id } = expectResult(await createResponse(fake.url));
  for (let i = 2; i < OVERLOAD_EVERY; i++)
    expectResult(await createResponse(fake.url, { body: { message: `more ${i}`, conversation_id } }));
  const request = { idempotencyKey: "continue", body: { message: "the overloaded one", conversation_id } };
  expectError(await createResponse(fake.url, request), 503, "service_unavailable");
  expect(expectResult(await createResponse(fake.url, request)).conversation_id).toBe(conversation_id);
  return { fake, total: expectPage(await listMessages(fake.url, conversation_id)).total };
}

test("retry-counted-twice (IDEM-2): the 503 comes after the exchange was stored, so the retry under the same key appends it again", async () => {
  expect((await overloadedContinuation({ variants: ["overloaded"] })).total).toBe(2 * OVERLOAD_EVERY);
  const { fake, total } = await overloadedContinuation({ mutant: "retry-counted-twice" });
  expect(total).toBe(2 * OVERLOAD_EVERY + 2);
  // A new conversation hit the same way leaves an orphan behind.
  for (let i = 0; i < OVERLOAD_EVERY - 1; i++) expectResult(await createResponse(fake.url, { key: "sk-fake-b" }));
  const before = fake.app.internals.snapshot().conversations;
  expectError(await createResponse(fake.url, { key: "sk-fake-b", idempotencyKey: "new" }), 503, "service_unavailable");
  expectResult(await createResponse(fake.url, { key: "sk-fake-b", idempotencyKey: "new" }));
  expect(fake.app.internals.snapshot().conversations).toBe(before + 2);
});

test("retry-counted-twice: among 50 continuations of one conversation, several are hit", async () => {
  const fake = await fakeServer({ mutant: "retry-counted-twice" });
  const { conversation_id } = expectResult(await createResponse(fake.url));
  let hits = 0;
  for (let i = 0; i < 50; i++) {
    const request = { idempotencyKey: `c-${i}`, body: { message: `question ${i}`, conversation_id } };
    if ((await createResponse(fake.url, request)).status === 503) {
      hits++;
      expectResult(await createResponse(fake.url, request));
    }
  }
  expect(hits).toBeGreaterThanOrEqual(5);
  expect(expectPage(await listMessages(fake.url, conversation_id, { query: "page_size=100" })).total).toBe(
    2 * (1 + 50 + hits),
  );
});

test("listing-never-settles (RESP-2): continuations are answered but never reach the listing", async () => {
  const steps = async (options: FakeServerOptions) => {
    const clock = new ManualClock();
    const fake = await fakeServer(options, { clock });
    const { conversation_id } = expectResult(await createResponse(fake.url));
    expect(
      expectResult(await createResponse(fake.url, { body: { message: "And then?", conversation_id } })).conversation_id,
    ).toBe(conversation_id);
    clock.advance(10 * LISTING_LAG_MS);
    return expectPage(await listMessages(fake.url, conversation_id)).total;
  };
  expect(await steps({ variants: ["listing-lag"] })).toBe(4);
  expect(await steps({ mutant: "listing-never-settles" })).toBe(2);
});

test("page-zero-as-first (LIST-10): page=0 is served as page 1 and echoed as 1 instead of 400", async () => {
  const started = async (options: FakeServerOptions) => {
    const fake = await fakeServer(options);
    const { conversation_id } = expectResult(await createResponse(fake.url));
    return (query: string) => listMessages(fake.url, conversation_id, { query });
  };
  expectError(await (await started({}))("page=0"), 400, "invalid_pagination");
  const list = await started({ mutant: "page-zero-as-first" });
  const zero = expectPage(await list("page=0"));
  expect(zero.page).toBe(1);
  expect(zero).toEqual(expectPage(await list("page=1")));
  // Only page 0: a negative page and page_size=0 are still refused.
  expectError(await list("page=-1"), 400, "invalid_pagination");
  expectError(await list("page_size=0"), 400, "invalid_pagination");
});
