import { request } from "undici";
import { expect, onTestFinished, test } from "vitest";
import { createFakeServer, type FakeServer, type FakeServerOptions } from "../fake-server/index.ts";
import { faultInjector } from "../fake-server/testing/index.ts";
import { createAgentClient, ServiceError, StreamFailedError, type AgentClientOptions } from "./well-behaved-client.ts";

async function setUp(fakeOptions: FakeServerOptions = {}, clientOptions: Partial<AgentClientOptions> = {}) {
  const fake: FakeServer = await createFakeServer({ port: 0, keys: ["sk-example-1=helper"], ...fakeOptions });
  onTestFinished(() => fake.close());
  const faults = faultInjector();
  const client = createAgentClient({
    baseUrl: fake.url,
    apiKey: "sk-example-1",
    agentId: "helper",
    dispatcher: faults.dispatcher,
    backoffMs: 20,
    ...clientOptions,
  });
  return { fake, faults, client };
}

/** Status of every request the fake saw, in order (the fake's own request log). */
async function statuses(fake: FakeServer, pathSuffix: string): Promise<number[]> {
  const response = await request(`${fake.url}/__fake/requests`);
  const { requests } = (await response.body.json()) as { requests: { path: string; status: number }[] };
  return requests.filter((r) => r.path.endsWith(pathSuffix)).map((r) => r.status);
}

async function health(fake: FakeServer): Promise<{ idempotency_records: number }> {
  const response = await request(`${fake.url}/__fake/health`);
  return (await response.body.json()) as { idempotency_records: number };
}

/** Polls a condition the fake reaches on its own; bounded in rounds and time. */
async function until(condition: () => Promise<boolean>, what: string): Promise<void> {
  for (let round = 0; round < 500; round++) {
    if (await condition()) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error(`gave up waiting for ${what}`);
}

test("create, stream, list and delete over one keep-alive pool break no client rule", async () => {
  const { fake, client } = await setUp();
  const created = await client.createResponse({ message: "How do reminders work?" });
  const pieces: string[] = [];
  const streamed = await client.streamResponse(
    { message: "And on my phone?", conversation_id: created.conversation_id },
    { onText: (t) => pieces.push(t) },
  );
  expect(pieces.length).toBeGreaterThan(1);
  expect(pieces.join("")).toBe(streamed.output_text);
  expect((await client.listMessages(created.conversation_id, { page: 1, pageSize: 10 })).total).toBe(4);
  await client.deleteConversation(created.conversation_id);
  await expect(client.deleteConversation(created.conversation_id)).rejects.toMatchObject({
    status: 404,
    code: "conversation_not_found",
  });
  expect(fake.clientViolations()).toEqual([]);
});

test("a stream dropped mid-way is retried under its key, and each piece of text is handed on once", async () => {
  const { fake, faults, client } = await setUp();
  faults.next("/responses/stream", "drop-after=2");
  const pieces: string[] = [];
  const completed = await client.streamResponse(
    { message: "How do I export my data?" },
    { onText: (t) => pieces.push(t) },
  );
  expect(faults.pending).toBe(0);
  expect(pieces.join("")).toBe(completed.output_text);
  expect(await statuses(fake, "/responses/stream")).toEqual([200, 200]);
  expect((await client.listMessages(completed.conversation_id)).total).toBe(2);
  expect(fake.clientViolations()).toEqual([]);
});

test("an error event fails the operation and is not retried", async () => {
  const { fake, faults, client } = await setUp();
  faults.next("/responses/stream", "error-after=1");
  await expect(client.streamResponse({ message: "How do I export my data?" })).rejects.toThrow(StreamFailedError);
  expect(await statuses(fake, "/responses/stream")).toEqual([200]);
  expect(fake.clientViolations()).toEqual([]);
});

test.for([
  ["429", "status=429,retry-after=1"],
  ["503", "status=503,retry-after=1"],
] as const)(
  "a %s with Retry-After is waited out; the fake is set to flag even one unpaced retry",
  async ([status, fault]) => {
    // stormMaxRetries 0: any retry that does not wait for Retry-After is reported.
    const { fake, faults, client } = await setUp({ clientRules: { stormMaxRetries: 0 } });
    faults.next("/responses", fault);
    const result = await client.createResponse({ message: "Is my data backed up?" });
    expect(result.response.length).toBeGreaterThan(0);
    expect(await statuses(fake, "/responses")).toEqual([Number(status), 200]);
    expect(fake.clientViolations()).toEqual([]);
  },
);

test("a Retry-After longer than the client will wait fails the operation at once", async () => {
  const { fake, faults, client } = await setUp({}, { maxRetryAfterMs: 5_000 });
  faults.next("/responses", "status=503,retry-after=60");
  await expect(client.createResponse({ message: "hello" })).rejects.toThrow(ServiceError);
  expect(await statuses(fake, "/responses")).toEqual([503]);
  expect(fake.clientViolations()).toEqual([]);
});

test("one operation submitted twice under its own id: the second waits out 409 in_use and gets the stored answer", async () => {
  const { fake, faults, client } = await setUp({}, { maxAttempts: 10 });
  // A minute between deltas: the first submit runs until the user cancels it.
  faults.next("/responses/stream", "delta-delay=60000");
  const body = { message: "How do I share a list?" };
  const cancel = new AbortController();
  const streamed = client.streamResponse(body, { idempotencyKey: "order-42", signal: cancel.signal });
  await until(async () => (await health(fake)).idempotency_records === 1, "the stream to hold its key");
  const created = client.createResponse(body, { idempotencyKey: "order-42" });
  await until(async () => (await statuses(fake, "/responses")).includes(409), "the second submit to be told 409");
  cancel.abort();
  await expect(streamed).rejects.toThrow();
  // The fake finishes an exchange whose client left, so the waiting submit gets its result.
  const result = await created;
  expect((await client.listMessages(result.conversation_id)).items.at(-1)).toMatchObject({ content: result.response });
  expect((await client.listMessages(result.conversation_id)).total).toBe(2);
  expect(fake.clientViolations()).toEqual([]);
});

test("the same question asked twice on purpose is two operations, not a duplicate", async () => {
  const { fake, client } = await setUp();
  const first = await client.createResponse({ message: "How do reminders work?" });
  const second = await client.createResponse({ message: "How do reminders work?" });
  expect(second.conversation_id).not.toBe(first.conversation_id);
  expect(fake.clientViolations()).toEqual([]);
});
