import fc from "fast-check";
import { expect, test } from "vitest";
import { listMessages, streamResponse } from "../test-support/client.ts";
import { completedOf, parseStream } from "../test-support/events.ts";
import { expectPage } from "../test-support/expect.ts";
import { fakeServer } from "../test-support/server.ts";

test("for any message, events come in spec order, names match their type, and deltas reassemble to output_text", async () => {
  const fake = await fakeServer();
  await fc.assert(
    fc.asyncProperty(fc.string({ unit: "binary", minLength: 1, maxLength: 200 }), async (message) => {
      const reply = await streamResponse(fake.url, { body: { message } });
      expect(reply.status).toBe(200);
      // parseStream checks the order (created, deltas, one terminal event last) and each name against its type.
      const stream = parseStream(reply.events);
      const { response } = completedOf(stream);
      expect(stream.created.conversation_id).toBe(response.conversation_id);
      expect(stream.deltas.join("")).toBe(response.output_text);
      const page = expectPage(await listMessages(fake.url, response.conversation_id));
      expect(page.items.map((item) => item.content)).toEqual([message, response.output_text]);
    }),
    { numRuns: 40, interruptAfterTimeLimit: 15_000, markInterruptAsFailure: true },
  );
});
