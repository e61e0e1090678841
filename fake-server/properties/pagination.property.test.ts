import fc from "fast-check";
import { expect, test } from "vitest";
import { listMessages } from "../test-support/client.ts";
import { expectPage } from "../test-support/expect.ts";
import { fakeServer } from "../test-support/server.ts";

test("pages partition the messages in order, with exact total and has_more, and the page past the end is empty", async () => {
  const fake = await fakeServer();
  await fc.assert(
    fc.asyncProperty(fc.nat(60), fc.integer({ min: 1, max: 100 }), async (exchanges, pageSize) => {
      fake.reset();
      const conversation = fake.app.internals.conversations.seed("agent-a", "web", exchanges);
      const stored = conversation.messages.map((message) => message.id);
      const total = stored.length;
      const lastPage = Math.max(1, Math.ceil(total / pageSize));
      const seen: string[] = [];
      for (let page = 1; page <= lastPage + 1; page++) {
        const body = expectPage(
          await listMessages(fake.url, conversation.id, { query: `page=${page}&page_size=${pageSize}` }),
        );
        expect(body).toMatchObject({ page, page_size: pageSize, total, has_more: page * pageSize < total });
        expect(body.items).toHaveLength(Math.min(pageSize, Math.max(0, total - (page - 1) * pageSize)));
        seen.push(...body.items.map((item) => item.id));
      }
      expect(seen).toEqual(stored);
    }),
    { numRuns: 40, interruptAfterTimeLimit: 15_000, markInterruptAsFailure: true },
  );
});
