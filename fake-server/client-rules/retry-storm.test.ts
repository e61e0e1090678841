import { expect, test } from "vitest";
import { createResponse, openStream } from "../test-support/client.ts";
import { fakeWithClock, onlyViolation, settled } from "../test-support/client-rules.ts";

const OVERLOADED = { "x-fake-fault": "status=429,retry-after=1" };

async function attempts(
  url: string,
  count: number,
  headers: Record<string, string>,
  between?: () => void,
): Promise<number[]> {
  const statuses: number[] = [];
  for (let i = 0; i < count; i++) {
    if (i > 0) between?.();
    statuses.push((await createResponse(url, { idempotencyKey: "k", headers })).status);
  }
  return statuses;
}

test("CLIENT-7: six immediate retries of a 429 within the window are one storm, with the first attempt and the retries", async () => {
  const { fake } = await fakeWithClock();
  expect(await attempts(fake.url, 7, OVERLOADED)).toEqual(Array(7).fill(429));
  const violation = onlyViolation(fake, "CLIENT-7");
  expect(violation.message).toContain("retried 6 times");
  expect(violation.requests).toHaveLength(7);
  expect(violation.requests.every((r) => r.idempotencyKey === "k" && r.status === 429)).toBe(true);
});

test("CLIENT-7: retries after answers without Retry-After count as unpaced", async () => {
  const { fake } = await fakeWithClock();
  await attempts(fake.url, 7, { "x-fake-fault": "status=500" });
  expect(onlyViolation(fake, "CLIENT-7").requests[0]?.status).toBe(500);
});

test("CLIENT-7: a storm is recorded once per window, and again for a later storm", async () => {
  const { fake, clock } = await fakeWithClock();
  await attempts(fake.url, 15, OVERLOADED);
  expect(fake.clientViolations({ requirement: "CLIENT-7" })).toHaveLength(1);
  clock.advance(fake.app.internals.clientRules.options.stormWindowMs + 1);
  await attempts(fake.url, 7, OVERLOADED);
  expect(fake.clientViolations({ requirement: "CLIENT-7" })).toHaveLength(2);
});

test("CLIENT-7: five unpaced retries stay below the default threshold and are not recorded", async () => {
  const { fake } = await fakeWithClock();
  await attempts(fake.url, 6, OVERLOADED);
  expect(fake.clientViolations()).toEqual([]);
});

test("CLIENT-7: twenty retries that each wait for Retry-After are not recorded", async () => {
  const { fake, clock } = await fakeWithClock();
  await attempts(fake.url, 21, OVERLOADED, () => clock.advance(1_000));
  expect(fake.clientViolations()).toEqual([]);
});

test("CLIENT-7: retries 50 ms short of Retry-After still count as waiting (the slack), 200 ms short do not", async () => {
  const waited = await fakeWithClock();
  await attempts(waited.fake.url, 8, OVERLOADED, () => waited.clock.advance(950));
  expect(waited.fake.clientViolations()).toEqual([]);
  const hurried = await fakeWithClock();
  await attempts(hurried.fake.url, 8, OVERLOADED, () => hurried.clock.advance(800));
  expect(onlyViolation(hurried.fake, "CLIENT-7").requests).toHaveLength(7);
});

test("CLIENT-7: retries while the first attempt still runs are unpaced", async () => {
  const { fake } = await fakeWithClock();
  const running = await openStream(fake.url, { idempotencyKey: "k", headers: { "x-fake-fault": "delta-delay=60000" } });
  expect((await running.next())?.event).toBe("response.created");
  const statuses = await attempts(fake.url, 6, {});
  expect(statuses).toEqual(Array(6).fill(409));
  running.abort();
  await settled(fake);
  expect(onlyViolation(fake, "CLIENT-7").requests[0]?.path).toBe("/v1/agents/agent-a/responses/stream");
});

test("CLIENT-7: the thresholds are options", async () => {
  const { fake } = await fakeWithClock({ clientRules: { stormMaxRetries: 1 } });
  await attempts(fake.url, 3, OVERLOADED);
  expect(onlyViolation(fake, "CLIENT-7").message).toContain("retried 2 times");
});
