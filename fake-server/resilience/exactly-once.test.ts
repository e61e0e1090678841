/**
 * 50 requests with one Idempotency-Key and one payload, all in flight at once on their own
 * connections: the operation is consumed once (one conversation, two messages, one record),
 * every other answer is a 409 idempotency_key_in_use or a replay of the winner's result.
 */

import { createParser, type EventSourceMessage } from "eventsource-parser";
import { Pool } from "undici";
import { expect, onTestFinished, test } from "vitest";
import { ErrorBody, ResponseResult } from "../../schemas/index.ts";
import { completedOf, parseStream } from "../test-support/events.ts";
import { fakeServer } from "../test-support/server.ts";
import { until } from "../test-support/until.ts";

const CONTENDERS = 50;
const BODY = JSON.stringify({ message: "How do I export my calendar?" });

type Operation = "plain" | "stream";

interface Outcome {
  status: number;
  replayed: boolean;
  /** The answer text of a 200, plain or streamed. */
  text: string | undefined;
  conversationId: string | undefined;
  errorCode: string | undefined;
}

async function send(pool: Pool, operation: Operation, key: string): Promise<Outcome> {
  const response = await pool.request({
    method: "POST",
    path: operation === "plain" ? "/v1/agents/agent-a/responses" : "/v1/agents/agent-a/responses/stream",
    headers: {
      authorization: "Bearer sk-fake-a",
      "content-type": "application/json",
      accept: operation === "plain" ? "application/json" : "text/event-stream",
      "idempotency-key": key,
    },
    body: BODY,
  });
  const raw = await response.body.text();
  const replayed = response.headers["idempotent-replayed"] === "true";
  if (response.statusCode !== 200) {
    return {
      status: response.statusCode,
      replayed,
      text: undefined,
      conversationId: undefined,
      errorCode: ErrorBody.parse(JSON.parse(raw)).error.code,
    };
  }
  if (operation === "plain") {
    const result = ResponseResult.parse(JSON.parse(raw));
    return {
      status: 200,
      replayed,
      text: result.response,
      conversationId: result.conversation_id,
      errorCode: undefined,
    };
  }
  const events: EventSourceMessage[] = [];
  const parser = createParser({ onEvent: (event) => events.push(event) });
  parser.feed(raw);
  const { response: completed } = completedOf(parseStream(events));
  return {
    status: 200,
    replayed,
    text: completed.output_text,
    conversationId: completed.conversation_id,
    errorCode: undefined,
  };
}

/** Runs the contenders at once, racing freely, and checks the verdict. */
async function contend(operations: (i: number) => Operation): Promise<void> {
  const fake = await fakeServer({ deltaDelayMs: 1 });
  const pool = new Pool(fake.url, { connections: CONTENDERS, pipelining: 1 });
  onTestFinished(() => pool.close());
  const before = fake.app.internals.snapshot();
  const outcomes = await Promise.all(
    Array.from({ length: CONTENDERS }, (_, i) => send(pool, operations(i), "contended-key")),
  );

  await fake.app.internals.inFlight.whenIdle();
  const after = fake.app.internals.snapshot();
  expect({
    conversations: after.conversations - before.conversations,
    messages: after.messages - before.messages,
    idempotencyRecords: after.idempotencyRecords - before.idempotencyRecords,
  }).toEqual({ conversations: 1, messages: 2, idempotencyRecords: 1 });

  const fresh = outcomes.filter((o) => o.status === 200 && !o.replayed);
  expect(fresh).toHaveLength(1);
  const winner = fresh[0];
  for (const outcome of outcomes) {
    if (outcome.status === 200) {
      expect({ text: outcome.text, conversationId: outcome.conversationId }).toEqual({
        text: winner?.text,
        conversationId: winner?.conversationId,
      });
    } else {
      expect({ status: outcome.status, code: outcome.errorCode }).toEqual({
        status: 409,
        code: "idempotency_key_in_use",
      });
    }
  }
}

test("50 concurrent plain creates with one key: one consumption", async () => {
  await contend(() => "plain");
});

test("50 concurrent streams with one key: one consumption", async () => {
  await contend(() => "stream");
});

test("50 concurrent plain creates and streams, mixed, with one key: one consumption between them", async () => {
  await contend((i) => (i % 2 === 0 ? "plain" : "stream"));
});

test("while one holder is in flight, all 49 others meet the key in use; afterwards it replays the one result", async () => {
  const fake = await fakeServer({ deltaDelayMs: 1 });
  const pool = new Pool(fake.url, { connections: CONTENDERS, pipelining: 1 });
  onTestFinished(() => pool.close());
  const before = fake.app.internals.snapshot();
  // The holder pauses for a minute before answering: only its hang-up ends the pause.
  const hangUp = new AbortController();
  const holder = pool.request({
    method: "POST",
    path: "/v1/agents/agent-a/responses",
    headers: {
      authorization: "Bearer sk-fake-a",
      "content-type": "application/json",
      "idempotency-key": "held",
      "x-fake-fault": "first-event-delay=60000",
    },
    body: BODY,
    signal: hangUp.signal,
  });
  await until(() => fake.app.internals.timers.active === 1, "the holder to pause with the key reserved");

  const others = await Promise.all(
    Array.from({ length: CONTENDERS - 1 }, (_, i) => send(pool, i % 2 === 0 ? "stream" : "plain", "held")),
  );
  expect(others.map((o) => `${o.status} ${o.errorCode}`)).toEqual(others.map(() => "409 idempotency_key_in_use"));

  hangUp.abort();
  await expect(holder).rejects.toThrow();
  await fake.app.internals.inFlight.whenIdle();
  const after = fake.app.internals.snapshot();
  expect(after.messages - before.messages).toBe(2);
  const replay = await send(pool, "plain", "held");
  expect(replay).toMatchObject({ status: 200, replayed: true });
  expect(fake.app.internals.snapshot()).toEqual(after);
});
