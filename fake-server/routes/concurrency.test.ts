import { expect, test } from "vitest";
import { ErrorBody } from "../../schemas/index.ts";
import { createResponse, listMessages, streamResponse, type Reply } from "../test-support/client.ts";
import { completedOf, parseStream } from "../test-support/events.ts";
import { expectPage, expectResult } from "../test-support/expect.ts";
import { fakeServer } from "../test-support/server.ts";

const CONCURRENT = 20;

/** Every loser is a 409 idempotency_key_in_use or a replay of the winner's result. */
function classify(reply: Reply, isReplay: (reply: Reply) => boolean): "in_use" | "replay" | "fresh" {
  if (reply.status === 409) {
    expect(ErrorBody.parse(reply.json).error.code).toBe("idempotency_key_in_use");
    expect(reply.headers["retry-after"]).toBe("1");
    return "in_use";
  }
  return isReplay(reply) ? "replay" : "fresh";
}

test("20 simultaneous creates with one key and payload take effect once", async () => {
  const fake = await fakeServer();
  const { conversation_id } = expectResult(await createResponse(fake.url));
  const body = { message: "concurrent", conversation_id };
  const replies = await Promise.all(
    Array.from({ length: CONCURRENT }, () => createResponse(fake.url, { idempotencyKey: "same", body })),
  );
  const kinds = replies.map((reply) => classify(reply, (r) => r.headers["idempotent-replayed"] === "true"));
  expect(kinds.filter((kind) => kind === "fresh")).toHaveLength(1);
  const winner = replies[kinds.indexOf("fresh")];
  for (const [i, reply] of replies.entries()) if (kinds[i] === "replay") expect(reply.text).toBe(winner?.text);
  expect(expectPage(await listMessages(fake.url, conversation_id)).total).toBe(4);
});

test("20 simultaneous streams with one key and payload take effect once", async () => {
  const fake = await fakeServer({ deltaDelayMs: 1 });
  const { conversation_id } = expectResult(await createResponse(fake.url));
  const body = { message: "concurrent stream", conversation_id };
  const replies = await Promise.all(
    Array.from({ length: CONCURRENT }, () => streamResponse(fake.url, { idempotencyKey: "same", body })),
  );
  const kinds = replies.map((reply) => classify(reply, (r) => r.headers["idempotent-replayed"] === "true"));
  expect(kinds.filter((kind) => kind === "fresh")).toHaveLength(1);
  const texts = replies
    .filter((_, i) => kinds[i] !== "in_use")
    .map((reply) => completedOf(parseStream(reply.events)).response.output_text);
  expect(new Set(texts).size).toBe(1);
  expect(expectPage(await listMessages(fake.url, conversation_id)).total).toBe(4);
});

test("simultaneous creates and streams under one key take effect once between them", async () => {
  const fake = await fakeServer({ deltaDelayMs: 1 });
  const { conversation_id } = expectResult(await createResponse(fake.url));
  const body = { message: "mixed", conversation_id };
  await Promise.all(
    Array.from({ length: CONCURRENT }, (_, i) =>
      i % 2 === 0
        ? createResponse(fake.url, { idempotencyKey: "same", body })
        : streamResponse(fake.url, { idempotencyKey: "same", body }),
    ),
  );
  expect(expectPage(await listMessages(fake.url, conversation_id)).total).toBe(4);
});
