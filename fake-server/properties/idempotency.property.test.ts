import fc from "fast-check";
import { expect, test } from "vitest";
import { ErrorBody, ResponseResult } from "../../schemas/index.ts";
import { createResponse, listMessages, streamResponse, type CreateCallOptions } from "../test-support/client.ts";
import { completedOf, parseStream } from "../test-support/events.ts";
import { expectPage } from "../test-support/expect.ts";
import { fakeServer } from "../test-support/server.ts";

interface Step {
  key: number;
  payload: number;
  operation: "create" | "stream";
  /** Send the same JSON with other key order and whitespace. */
  reordered: boolean;
}

const step: fc.Arbitrary<Step> = fc.record({
  key: fc.nat(3),
  payload: fc.nat(2),
  operation: fc.constantFrom("create" as const, "stream" as const),
  reordered: fc.boolean(),
});

function rawBody(payload: number, conversationId: string, reordered: boolean): string {
  const message = `payload ${payload}`;
  return reordered
    ? `{\n  "conversation_id": ${JSON.stringify(conversationId)},\n  "message": ${JSON.stringify(message)}\n}`
    : JSON.stringify({ message, conversation_id: conversationId });
}

/** What one request did: a fresh or replayed answer text, or the error code of a refusal. */
async function send(url: string, options: CreateCallOptions, operation: Step["operation"]) {
  if (operation === "create") {
    const reply = await createResponse(url, options);
    if (reply.status !== 200) return { replayed: false, error: ErrorBody.parse(reply.json).error.code };
    return {
      replayed: reply.headers["idempotent-replayed"] === "true",
      text: ResponseResult.parse(reply.json).response,
    };
  }
  const reply = await streamResponse(url, options);
  if (reply.status !== 200) return { replayed: false, error: ErrorBody.parse(reply.json).error.code };
  const text = completedOf(parseStream(reply.events)).response.output_text;
  return { replayed: reply.headers["idempotent-replayed"] === "true", text };
}

test("each distinct (key, payload) is consumed exactly once, on either operation; another payload under a used key is 409", async () => {
  const fake = await fakeServer();
  await fc.assert(
    fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 10 }), async (steps) => {
      fake.reset();
      const conversation = fake.app.internals.conversations.seed("agent-a", "web", 0);
      // Model: the payload and answer first seen under each key.
      const firstUse = new Map<number, { payload: number; text: string }>();
      for (const { key, payload, operation, reordered } of steps) {
        const options = { idempotencyKey: `key-${key}`, rawBody: rawBody(payload, conversation.id, reordered) };
        const outcome = await send(fake.url, options, operation);
        const earlier = firstUse.get(key);
        if (!earlier) {
          expect(outcome).toMatchObject({ replayed: false });
          expect(outcome.text).toBeDefined();
          firstUse.set(key, { payload, text: outcome.text ?? "" });
        } else if (earlier.payload === payload) {
          expect(outcome).toEqual({ replayed: true, text: earlier.text });
        } else {
          expect(outcome).toEqual({ replayed: false, error: "idempotency_key_reused" });
        }
      }
      const total = expectPage(await listMessages(fake.url, conversation.id)).total;
      expect(total).toBe(2 * firstUse.size);
    }),
    { numRuns: 30, interruptAfterTimeLimit: 15_000, markInterruptAsFailure: true },
  );
});
