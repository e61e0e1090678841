/**
 * Create a response (RESP-1 … RESP-8).
 * Create cost: 15 at most — RESP-1: 1, RESP-2: 2, RESP-3: 2, RESP-4: 1 + 2 refused,
 * RESP-5: 1 refused, RESP-6: 3 (property runs), RESP-7: 2 refused, RESP-8: 1 refused.
 */
import { randomUUID } from "node:crypto";
import fc from "fast-check";
import { CONVERSATION_NOT_FOUND, SpecResponseResult } from "../../schemas/index.ts";
import { payloadParts, requestBody, type PayloadParts } from "../harness/arbitraries.ts";
import { check } from "../harness/check.ts";
import {
  expect2xx,
  expect4xx,
  expectErrorCode,
  expectJson,
  expectSame,
  expectSomeErrorCode,
  expectStatus,
  expectThat,
  expectValidationRefusal,
} from "../harness/expect.ts";
import {
  acceptExchange,
  continueConversation,
  sameId,
  startConversation,
  totalOf,
  trackIfCreated,
} from "./support/conversations.ts";

const RESP6_RUNS = 3;
/** A payload with a null external_reference and small flat metadata, including a hostile key. */
const BOTH_OPTIONAL_FIELDS: PayloadParts = {
  text: "café ☕ 日本語",
  metadata: Object.fromEntries([["source", "conformance"], ["__proto__", "plain data"]]),
  externalReference: null,
  continueConversation: false,
};

check(
  ["RESP-1"],
  "a create answers 2xx JSON with conversation_id, response and citations",
  { creates: 1 },
  async (target) => {
    const res = await target.client.create({ body: { message: target.message("resp-1") } });
    expect2xx(res, "create");
    const result = expectJson(SpecResponseResult, res, "create");
    target.track(result.conversation_id);
  },
);

check(
  ["RESP-2"],
  "a create naming an existing conversation continues it: same id back and the listing grows",
  { creates: 2 },
  async (target) => {
    const first = await startConversation(target, "resp-2-first");
    const before = await totalOf(target, first.conversationId);
    const next = await continueConversation(target, first.conversationId, "resp-2-next");
    const after = await totalOf(target, first.conversationId);
    expectThat(after > before, `the conversation's total did not grow after the exchange (before ${before}, after ${after})`, next.http);
  },
);

check(
  ["RESP-3"],
  "a create with conversation_id absent or null starts a new conversation with a fresh UUID",
  { creates: 2 },
  async (target) => {
    const absent = await target.client.create({ body: { message: target.message("resp-3-absent") } });
    const a = acceptExchange(target, absent, "create without conversation_id");
    const nulled = await target.client.create({ body: { message: target.message("resp-3-null"), conversation_id: null } });
    const b = acceptExchange(target, nulled, "create with conversation_id null");
    expectThat(!sameId(a.conversationId, b.conversationId), `two new conversations got the same id ${a.conversationId}`, absent, nulled);
    // A fresh conversation holds only its own exchange: it is listable and not empty.
    expectThat((await totalOf(target, b.conversationId)) >= 1, "the new conversation's listing is empty", nulled);
  },
);

check(
  ["RESP-4"],
  "a body without a string message is rejected with a 4xx and changes nothing",
  { creates: 3 },
  async (target) => {
    const { conversationId } = await startConversation(target, "resp-4");
    const before = await totalOf(target, conversationId);
    const invalid: [string, unknown][] = [
      ["no message", { conversation_id: conversationId }],
      ["a numeric message", { message: 42, conversation_id: conversationId }],
    ];
    for (const [label, body] of invalid) {
      const res = await target.client.create({ body });
      trackIfCreated(target, res, target.primary);
      expect4xx(res, `create with ${label}`);
    }
    expectSame(await totalOf(target, conversationId), before, "the conversation's total after the rejected creates");
  },
);

check(
  ["RESP-5"],
  "a validation failure is 400 or 422 with a JSON error code",
  { creates: 1 },
  async (target) => {
    const res = await target.client.create({ body: { metadata: { source: "conformance" } } });
    trackIfCreated(target, res, target.primary);
    expectValidationRefusal(res, "create without a message");
    expectSomeErrorCode(res, "create without a message");
  },
);

check(
  ["RESP-6"],
  "external_reference (string or null) and small flat string metadata are accepted, with any Unicode message",
  { creates: RESP6_RUNS },
  async (target) => {
    const conversations: string[] = [];
    await fc.assert(
      fc.asyncProperty(payloadParts(), async (parts) => {
        const continued = parts.continueConversation ? conversations.at(-1) : undefined;
        const body = requestBody(`${target.message("resp-6")} ${parts.text}`, parts, continued);
        const res = await target.client.create({ body });
        const exchange = acceptExchange(target, res, "create with optional fields");
        if (continued !== undefined) {
          expectThat(sameId(exchange.conversationId, continued), `continuing ${continued} answered for ${exchange.conversationId}`, res);
        }
        conversations.push(exchange.conversationId);
      }),
      // No shrinking: every run costs a create on the target. The first run always sends both
      // optional fields (examples count within the runs), so refusing either is always caught.
      { ...target.fc(RESP6_RUNS), endOnFailure: true, examples: [[BOTH_OPTIONAL_FIELDS]] },
    );
  },
);

check(
  ["RESP-7"],
  "metadata that is not a JSON object is rejected with a 4xx",
  { creates: 2 },
  async (target) => {
    for (const [label, metadata] of [["a string", "not an object"], ["an array", ["a", "b"]]] as const) {
      const res = await target.client.create({ body: { message: target.message("resp-7"), metadata } });
      trackIfCreated(target, res, target.primary);
      expect4xx(res, `create with metadata as ${label}`);
    }
  },
);

check(
  ["RESP-8"],
  "continuing an unknown conversation_id is 404 conversation_not_found",
  { creates: 1 },
  async (target) => {
    const res = await target.client.create({ body: { message: target.message("resp-8"), conversation_id: randomUUID() } });
    trackIfCreated(target, res, target.primary);
    expectStatus(res, 404, "create continuing an unknown conversation");
    expectErrorCode(res, CONVERSATION_NOT_FOUND, "create continuing an unknown conversation");
  },
);
