import { expect, test } from "vitest";
import { createAnswerEngine, type AnswerEngine } from "../answers/engine.ts";
import { createResponse, listMessages, streamResponse } from "../test-support/client.ts";
import { expectError, expectPage, expectResult } from "../test-support/expect.ts";
import { fakeServer } from "../test-support/server.ts";

/** An answer engine that throws for one message and answers every other. */
function engineFailingOn(poison: string): AnswerEngine {
  const real = createAnswerEngine(1);
  return {
    answer(message) {
      if (message === poison) throw new Error(`engine exploded on ${JSON.stringify(message)}`);
      return real.answer(message);
    },
  };
}

async function fakeWithFailingEngine() {
  const lines: string[] = [];
  const fake = await fakeServer({ log: (line) => lines.push(line) }, { engine: engineFailingOn("boom") });
  return { fake, lines };
}

test.each([
  ["create", createResponse],
  ["stream", streamResponse],
] as const)(
  "an exception in %s becomes a logged 500 internal_error, and the server keeps serving",
  async (_name, send) => {
    const { fake, lines } = await fakeWithFailingEngine();
    const { conversation_id } = expectResult(await createResponse(fake.url));
    const before = fake.app.internals.snapshot();

    const reply = await send(fake.url, { idempotencyKey: "k", body: { message: "boom", conversation_id } });
    expect(expectError(reply, 500, "internal_error").error.message).not.toContain("exploded");
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain("engine exploded");
    expect(lines[0]).toContain("/v1/agents/agent-a/responses");
    expect(fake.app.internals.snapshot()).toEqual(before);

    // The failed operation released its key: the same key runs a new payload, not a 409.
    expectResult(await createResponse(fake.url, { idempotencyKey: "k", body: { message: "fine", conversation_id } }));
    expect(expectPage(await listMessages(fake.url, conversation_id)).total).toBe(4);
  },
);

test("a logger that throws does not take the server down", async () => {
  const fake = await fakeServer(
    {
      log: () => {
        throw new Error("logger down");
      },
    },
    { engine: engineFailingOn("boom") },
  );
  expectError(await createResponse(fake.url, { body: { message: "boom" } }), 500, "internal_error");
  expectResult(await createResponse(fake.url));
});
