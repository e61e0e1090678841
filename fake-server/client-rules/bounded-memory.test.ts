import { expect, test } from "vitest";
import { ManualClock } from "../test-support/manual-clock.ts";
import { KeyBucket, KeyBuckets } from "./key-buckets.ts";
import type { ObservedRequest } from "./observed-request.ts";
import { ClientRuleObserver } from "./observer.ts";
import { call, createResponse } from "../test-support/client.ts";
import { fakeServer } from "../test-support/server.ts";

function request(at: number): ObservedRequest {
  return {
    method: "GET",
    path: "/v1/x",
    at,
    operation: undefined,
    agent: undefined,
    idempotencyKey: undefined,
    headers: { authorization: undefined, accept: undefined, contentType: undefined },
  };
}

test("a bucket keeps the newest history and violations up to their caps, and counts every violation", () => {
  const bucket = new KeyBucket("sk-test");
  for (let i = 0; i < 10; i++) {
    bucket.remember(request(i), 3);
    bucket.record({ sequence: i, requirement: "CLIENT-1", message: "m", at: i, requests: [request(i)] }, 4);
  }
  expect(bucket.history.map((r) => r.at)).toEqual([7, 8, 9]);
  expect(bucket.violations.map((v) => v.sequence)).toEqual([6, 7, 8, 9]);
  expect(bucket.counts.get("CLIENT-1")).toBe(10);
});

function create(at: number, idempotencyKey: string, operation: "create" | "stream" = "create"): ObservedRequest {
  return { ...request(at), method: "POST", operation, agent: "agent-a", idempotencyKey };
}

test("a request that leaves the history leaves the indexes the rules read too", () => {
  const bucket = new KeyBucket("sk-test");
  const first = create(0, "k");
  const stream = create(1, "s", "stream");
  bucket.remember(first, 3);
  bucket.remember(stream, 3);
  stream.streamEnd = "cut";
  bucket.closed(stream);
  bucket.remember(create(2, "k"), 3);
  expect(bucket.sameOperationKey(first).map((r) => r.at)).toEqual([0, 2]);
  expect(bucket.failedStreams).toEqual([stream]);
  bucket.remember(create(3, "other"), 3);
  bucket.remember(create(4, "other"), 3);
  expect(bucket.sameOperationKey(first).map((r) => r.at)).toEqual([2]);
  expect(bucket.failedStreams).toEqual([]);
  // A stream that closes after it left the history is not indexed again.
  bucket.closed(stream);
  expect(bucket.failedStreams).toEqual([]);
});

test("failed streams are indexed in arrival order whatever order they close in", () => {
  const bucket = new KeyBucket("sk-test");
  const early = create(0, "a", "stream");
  const late = create(1, "b", "stream");
  bucket.remember(early, 10);
  bucket.remember(late, 10);
  late.streamEnd = "error";
  bucket.closed(late);
  early.streamEnd = "cut";
  bucket.closed(early);
  expect(bucket.failedStreams).toEqual([early, late]);
});

test("the key least recently seen is evicted first", () => {
  const buckets = new KeyBuckets(2);
  buckets.touch("a");
  buckets.touch("b");
  buckets.touch("a");
  buckets.touch("c");
  expect([...buckets.all()].map((b) => b.token)).toEqual(["a", "c"]);
});

test("a fake with small caps keeps the newest violations of the newest keys, and the totals stay exact", async () => {
  const fake = await fakeServer({
    keys: ["sk-one=agent-a", "sk-two=agent-a", "sk-three=agent-a"],
    clientRules: { maxKeys: 2, maxViolationsPerKey: 3 },
  });
  for (const key of ["sk-one", "sk-two", "sk-three"]) {
    for (let i = 0; i < 5; i++)
      await createResponse(fake.url, { key, idempotencyKey: null, body: { message: `${key} ${i}` } });
  }
  const shown = fake.clientViolations();
  expect(shown).toHaveLength(6);
  expect(fake.clientViolations({ key: "sk-one" })).toEqual([]);
  expect(fake.clientViolations({ key: "sk-three" })).toHaveLength(3);
  expect(fake.clientViolationCounts()).toEqual([{ requirement: "CLIENT-2", title: expect.any(String), count: 15 }]);
  expect(fake.clientViolationCounts({ key: "sk-two" })).toEqual([
    { requirement: "CLIENT-2", title: expect.any(String), count: 5 },
  ]);
});

test("thousands of distinct garbage keys leave at most maxKeys buckets", async () => {
  const fake = await fakeServer({ clientRules: { maxKeys: 5 } });
  for (let i = 0; i < 50; i++) await call(fake.url, "GET", "/v1/nowhere", { authorization: `Bearer junk-${i}` });
  expect(fake.app.internals.clientRules.trackedKeys).toBe(5);
});

test("options outside their bounds are refused with the option's name", () => {
  expect(() => new ClientRuleObserver(new ManualClock(), new Set(), { maxKeys: 0 })).toThrow(/clientRules\.maxKeys/);
  expect(() => new ClientRuleObserver(new ManualClock(), new Set(), { stormWindowMs: 1.5 })).toThrow(
    /clientRules\.stormWindowMs/,
  );
});
