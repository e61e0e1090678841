import { expect, onTestFinished, test } from "vitest";
import { ClientViolation } from "../schemas/index.ts";
import { createFakeServer, type FakeServer } from "../fake-server/index.ts";
import { createCarelessClient } from "./careless-client.ts";
import { faultInjector } from "../fake-server/testing/index.ts";

async function setUp() {
  // Wide windows: the verdicts must not depend on how fast this machine is.
  const fake: FakeServer = await createFakeServer({
    port: 0,
    keys: ["sk-careless-1=helper"],
    clientRules: { duplicateWindowMs: 600_000, stormWindowMs: 600_000 },
  });
  onTestFinished(() => fake.close());
  const faults = faultInjector();
  const client = createCarelessClient({
    baseUrl: fake.url,
    apiKey: "sk-careless-1",
    agentId: "helper",
    dispatcher: faults.dispatcher,
  });
  return { fake, faults, client };
}

/** The requirements recorded so far, each violation checked against the published schema. */
function recorded(fake: FakeServer): string[] {
  return fake.clientViolations().map((v) => ClientViolation.parse(v).requirement);
}

test("CLIENT-3: asking two questions under one fixed key is reported, with both bodies", async () => {
  const { fake, client } = await setUp();
  expect((await client.ask("How do reminders work?")).status).toBe(200);
  expect((await client.ask("How do I export my data?")).status).toBe(409);
  expect(recorded(fake)).toEqual(["CLIENT-3"]);
  const [violation] = fake.clientViolations();
  expect(violation?.apiKey).toBe("sk-car…");
  expect(violation?.requests.map((r) => r.bodyExcerpt)).toEqual([
    '{"message":"How do reminders work?"}',
    '{"message":"How do I export my data?"}',
  ]);
});

test("CLIENT-2 CLIENT-6: a quick question without a key, sent as text/plain, is reported twice", async () => {
  const { fake, client } = await setUp();
  expect((await client.askQuickly("hello")).status).toBe(400);
  expect(recorded(fake)).toEqual(["CLIENT-2", "CLIENT-6"]);
});

test("CLIENT-5: a stream without Accept is reported, though it is served", async () => {
  const { fake, client } = await setUp();
  expect(await client.streamAnswer("How do I share a list?")).toContain("event: response.completed");
  expect(recorded(fake)).toEqual(["CLIENT-5"]);
});

test("CLIENT-4 CLIENT-5: a dropped stream sent again under a new key is reported as a likely duplicate", async () => {
  const { fake, faults, client } = await setUp();
  faults.next("/responses/stream", "drop-after=1");
  expect(await client.streamAnswer("How do I share a list?")).toContain("event: response.completed");
  expect(faults.pending).toBe(0);
  expect(recorded(fake)).toEqual(["CLIENT-5", "CLIENT-5", "CLIENT-4"]);
  const duplicate = fake.clientViolations({ requirement: "CLIENT-4" })[0];
  const [first, second] = duplicate?.requests ?? [];
  expect(first?.idempotencyKey).not.toBe(second?.idempotencyKey);
  expect(first?.bodyExcerpt).toBe(second?.bodyExcerpt);
});

test("CLIENT-4 CLIENT-5: a stream that failed with an error event, sent again under a new key, is reported", async () => {
  const { fake, faults, client } = await setUp();
  faults.next("/responses/stream", "error-after=1");
  await client.streamAnswer("How do I share a list?");
  expect(recorded(fake)).toEqual(["CLIENT-5", "CLIENT-5", "CLIENT-4"]);
});

test("CLIENT-7: retrying a 429 at once, again and again, is reported as a retry storm", async () => {
  const { fake, faults, client } = await setUp();
  for (let i = 0; i < 10; i++) faults.next("/responses", "status=429,retry-after=2");
  expect((await client.askPersistently("Is the service up?")).status).toBe(429);
  expect(faults.pending).toBe(0);
  expect(recorded(fake)).toEqual(["CLIENT-7"]);
});

test("CLIENT-1: the key without Bearer is reported under that key, never shown in full", async () => {
  const { fake, client } = await setUp();
  expect((await client.history("0b7e2c3a-2f4e-4c1e-9d8a-5b6c7d8e9f01")).status).toBe(401);
  expect(recorded(fake)).toEqual(["CLIENT-1"]);
  expect(fake.clientViolations({ key: "sk-careless-1" })).toHaveLength(1);
  expect(JSON.stringify(fake.clientViolations())).not.toContain("sk-careless-1");
});

test("the exit summary counts each kind", async () => {
  const { fake, client } = await setUp();
  await client.askQuickly("a");
  await client.askQuickly("b");
  await client.history("0b7e2c3a-2f4e-4c1e-9d8a-5b6c7d8e9f01");
  expect(fake.clientViolationCounts().map((c) => [c.requirement, c.count])).toEqual([
    ["CLIENT-1", 1],
    ["CLIENT-2", 2],
    ["CLIENT-6", 2],
  ]);
});
