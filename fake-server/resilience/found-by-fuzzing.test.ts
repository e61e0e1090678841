/**
 * Defects the hostile-request fuzz found, pinned as plain examples so that they stay fixed
 * whatever seed the fuzz draws.
 */

import { expect, test } from "vitest";
import { call, createResponse } from "../test-support/client.ts";
import { expectError, expectResult } from "../test-support/expect.ts";
import { fakeServer } from "../test-support/server.ts";

test("arrays nested 100,000 deep in a field the schema ignores are fingerprinted, not a 500", async () => {
  const logged: string[] = [];
  const fake = await fakeServer({ log: (line) => logged.push(line) });
  const depth = 100_000;
  const rawBody = `{"message":"deep","extra":${"[".repeat(depth)}${"]".repeat(depth)}}`;
  const first = expectResult(await createResponse(fake.url, { idempotencyKey: "deep", rawBody }));
  // The same payload under the same key is a replay: the fingerprint is stable.
  const again = await createResponse(fake.url, { idempotencyKey: "deep", rawBody });
  expect(again.headers["idempotent-replayed"]).toBe("true");
  expect(expectResult(again)).toEqual(first);
  expect(logged).toEqual([]);
});

test("a /V1 path in capitals, which the router matches like /v1, still needs a valid key", async () => {
  const logged: string[] = [];
  const fake = await fakeServer({ log: (line) => logged.push(line) });
  const headers = { "content-type": "application/json", "idempotency-key": "caps" };
  const reply = await call(
    fake.url,
    "POST",
    "/V1/AGENTS/agent-a/responses",
    headers,
    JSON.stringify({ message: "hi" }),
  );
  expectError(reply, 401, "unauthorized");
  expect(fake.app.internals.snapshot()).toMatchObject({ conversations: 0, messages: 0 });
  expect(logged).toEqual([]);
});
