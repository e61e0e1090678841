/**
 * Create a response (RESP-1 … RESP-8).
 * Create cost: 3 of its own on a conforming target — RESP-3: 1 (the conversation_id null case),
 * RESP-4: 1 (the valid create reusing a refused create's key), RESP-6: 1 (a property run with
 * both optional fields; their every shape is the interaction property's).
 * Declared: 10, since the requests a conforming target refuses (RESP-4: 3, RESP-5: 1, RESP-7: 2,
 * RESP-8: 1) may be accepted by a broken one.
 * Everything else reads the run's shared conversations (suite/checks/support/fixtures.ts; their
 * creates are the fixtures', shared with other families): RESP-1 and RESP-2 judge the small
 * conversation's plain exchanges, RESP-2 in the full profile also every plain continuation of
 * the long one, RESP-3 compares the first exchanges of the small conversation and the one for
 * refused changes, and RESP-4 tries its invalid bodies on the latter.
 * Smoke profile: RESP-1, RESP-2 (small conversation) and both RESP-4 checks, 1 create of its own.
 */
import { randomUUID } from "node:crypto";
import fc from "fast-check";
import { CONVERSATION_NOT_FOUND, SpecResponseResult } from "../../schemas/index.ts";
import { payloadParts, requestBody, type PayloadParts } from "./support/arbitraries.ts";
import { check } from "./runtime/check.ts";
import { answerRule } from "../judgements/answer-rules.ts";
import { HarnessError } from "../http/errors.ts";
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
} from "../judgements/expect.ts";
import type { HttpResult } from "../http/types.ts";
import type { Target } from "./runtime/types.ts";
import { acceptExchange, totalOf, trackIfCreated } from "./support/conversations.ts";
import { sameId } from "../judgements/answers.ts";
import { longConversation, refusalTarget, smallConversation } from "./support/fixtures.ts";
import type { RecordedConversation, RecordedExchange } from "./support/recorded.ts";
import { afterQuietWindow, listingGrownPast } from "./support/settled.ts";
import { checkProperty } from "./support/property.ts";
import { skipCheck } from "./support/skip.ts";

const RESP6_RUNS = 1;
/** A payload with a null external_reference and small flat metadata, including a hostile key. */
const BOTH_OPTIONAL_FIELDS: PayloadParts = {
  text: "café ☕ 日本語",
  metadata: Object.fromEntries([
    ["source", "conformance"],
    ["__proto__", "plain data"],
  ]),
  externalReference: null,
  continueConversation: false,
};

/** The plain answer a shared conversation recorded for one of its exchanges. */
function plainAnswer(exchange: RecordedExchange): HttpResult {
  if (exchange.http === undefined)
    throw new HarnessError("internal", `the recorded exchange "${exchange.message}" holds no plain answer`);
  return exchange.http;
}

/** The conversation's first exchange, judged as a create result. */
function firstResult(
  conversation: RecordedConversation,
  label: string,
): { result: SpecResponseResult; http: HttpResult } {
  const first = conversation.exchanges[0];
  if (first === undefined) throw new HarnessError("internal", `the shared ${label} holds no exchange`);
  const http = plainAnswer(first);
  const context = `the first create of the ${label}`;
  expect2xx(http, context);
  return { result: expectJson(SpecResponseResult, http, context), http };
}

/** Every plain exchange after the first: they continue the conversation by its id. */
const plainContinuations = (conversation: RecordedConversation) =>
  conversation.exchanges.slice(1).filter((e) => e.kind === "plain");

/** RESP-2 on one recorded continuation: the answer names the conversation, and its listing grew. */
function expectContinued(target: Target, conversationId: string, exchange: RecordedExchange, context: string): void {
  const http = plainAnswer(exchange);
  expect2xx(http, context);
  const answered = expectJson(SpecResponseResult, http, context).conversation_id;
  expectThat(
    sameId(answered, conversationId),
    `${context}: continuing ${conversationId} answered for conversation ${answered}`,
    http,
  );
  const { page, http: listed } = exchange.listingAfter;
  // The fixture read the listing until it grew, so a total that did not grow never did within --settle-ms.
  expectThat(
    page.total > exchange.totalBefore,
    `${context}: the conversation's listing did not grow (total ${exchange.totalBefore} → ${page.total}), ` +
      `read again for up to --settle-ms ${target.settleMs} ms`,
    http,
    listed,
  );
}

check(
  ["RESP-1"],
  "a create answers 2xx JSON with conversation_id, response and citations (the small conversation's plain creates)",
  { creates: 0, uses: [smallConversation], smoke: true },
  async (target) => {
    const { exchanges } = await target.shared(smallConversation);
    exchanges
      .filter((e) => e.kind === "plain")
      .forEach((e, i) => {
        const context = `plain create ${i + 1} of the small conversation`;
        answerRule("RESP-1").judge({ to: "create", http: plainAnswer(e) }, context);
      });
  },
);

check(
  ["RESP-2"],
  "a create naming an existing conversation continues it: same id back and the listing grows (the small conversation)",
  { creates: 0, uses: [smallConversation], smoke: true },
  async (target) => {
    const small = await target.shared(smallConversation);
    const continuations = plainContinuations(small);
    if (continuations.length === 0)
      throw new HarnessError("internal", "the shared small conversation holds no plain continuation");
    for (const e of continuations)
      expectContinued(target, small.conversationId, e, "the small conversation's plain continuation");
  },
);

check(
  ["RESP-2"],
  "every plain continuation of the long conversation came back with its id and grew its listing",
  { creates: 0, uses: [longConversation] },
  async (target) => {
    const long = await target.shared(longConversation);
    const continuations = plainContinuations(long);
    if (continuations.length === 0) skipCheck("the long conversation holds no plain continuation");
    continuations.forEach((e, i) =>
      expectContinued(
        target,
        long.conversationId,
        e,
        `plain continuation ${i + 1} of ${continuations.length} of the long conversation`,
      ),
    );
  },
);

check(
  ["RESP-3"],
  "a create with conversation_id absent or null starts a new conversation with a fresh UUID",
  { creates: 1, uses: [smallConversation, refusalTarget] },
  async (target) => {
    // The absent case: two shared conversations were started without conversation_id.
    const small = firstResult(await target.shared(smallConversation), "small conversation");
    const other = firstResult(await target.shared(refusalTarget), "conversation for refused changes");
    const a = small.result.conversation_id;
    expectThat(
      !sameId(a, other.result.conversation_id),
      `two creates without conversation_id got the same id ${a}`,
      small.http,
      other.http,
    );

    const nulled = await target.client.create({
      body: { message: target.message("resp-3-null"), conversation_id: null },
    });
    const { conversationId: c } = acceptExchange(target, nulled, "create with conversation_id null");
    expectThat(
      !sameId(c, a) && !sameId(c, other.result.conversation_id),
      `the create with conversation_id null was answered with the existing conversation ${c}`,
      nulled,
    );
    // A fresh conversation holds its own exchange: it is listed, and not empty.
    await listingGrownPast(target, c, 0, "listing the conversation started with conversation_id null");
  },
);

check(
  ["RESP-4"],
  "a body without a string message is rejected with a 4xx and changes nothing",
  // A conforming target refuses both; a broken one may accept them.
  { creates: 2, uses: [refusalTarget], smoke: true },
  async (target) => {
    const { conversationId } = await target.shared(refusalTarget);
    // Read now, not from the fixture: earlier checks may have changed it legitimately.
    const before = await totalOf(target, conversationId);
    const invalid: [string, unknown][] = [
      ["no message", { conversation_id: conversationId }],
      ["a numeric message", { message: 42, conversation_id: conversationId }],
    ];
    const answers: HttpResult[] = [];
    for (const [label, body] of invalid) {
      const res = await target.client.create({ body });
      trackIfCreated(target, res, target.primary);
      expect4xx(res, `create with ${label}`);
      answers.push(res);
    }
    // A write-behind service would show a wrongly stored exchange only after its lag.
    await afterQuietWindow(target);
    expectSame(
      await totalOf(target, conversationId),
      before,
      "the conversation's total after the rejected creates",
      ...answers,
    );
  },
);

check(
  ["RESP-4"],
  "a create rejected for its body does not use up its Idempotency-Key: a valid create with that key is accepted",
  // The valid create; the invalid one is refused by a conforming target.
  { creates: 2, smoke: true },
  async (target) => {
    const key = target.idempotencyKey("resp-4-key");
    const refused = await target.client.create({ body: { message: 42 }, idempotencyKey: key });
    trackIfCreated(target, refused, target.primary);
    expect4xx(refused, "create with a numeric message");
    // Nothing with this key is running any more, so a 409 is the verdict, not "try later".
    const valid = await target.client.create({
      body: { message: target.message("resp-4-key") },
      idempotencyKey: key,
      retryInUse: false,
    });
    acceptExchange(
      target,
      valid,
      "a valid create with the Idempotency-Key of the rejected one (a rejected create changes nothing, its key included)",
    );
  },
);

check(["RESP-5"], "a validation failure is 400 or 422 with a JSON error code", { creates: 1 }, async (target) => {
  const res = await target.client.create({ body: { metadata: { source: "conformance" } } });
  trackIfCreated(target, res, target.primary);
  expectValidationRefusal(res, "create without a message");
  expectSomeErrorCode(res, "create without a message");
});

check(
  ["RESP-6"],
  "external_reference (string or null) and small flat string metadata are accepted, with any Unicode message",
  { creates: RESP6_RUNS },
  async (target) => {
    const conversations: string[] = [];
    await checkProperty(
      fc.asyncProperty(payloadParts(), async (parts) => {
        const continued = parts.continueConversation ? conversations.at(-1) : undefined;
        const body = requestBody(`${target.message("resp-6")} ${parts.text}`, parts, continued);
        const res = await target.client.create({ body });
        const exchange = acceptExchange(target, res, "create with optional fields");
        if (continued !== undefined) {
          expectThat(
            sameId(exchange.conversationId, continued),
            `continuing ${continued} answered for ${exchange.conversationId}`,
            res,
          );
        }
        conversations.push(exchange.conversationId);
      }),
      // No shrinking: every run costs a create on the target. The first run always sends both
      // optional fields (examples count within the runs), so refusing either is always caught.
      { ...target.fc(RESP6_RUNS), endOnFailure: true, examples: [[BOTH_OPTIONAL_FIELDS]] },
    );
  },
);

check(["RESP-7"], "metadata that is not a JSON object is rejected with a 4xx", { creates: 2 }, async (target) => {
  for (const [label, metadata] of [
    ["a string", "not an object"],
    ["an array", ["a", "b"]],
  ] as const) {
    const res = await target.client.create({ body: { message: target.message("resp-7"), metadata } });
    trackIfCreated(target, res, target.primary);
    expect4xx(res, `create with metadata as ${label}`);
  }
});

check(
  ["RESP-8"],
  "continuing an unknown conversation_id is 404 conversation_not_found",
  { creates: 1 },
  async (target) => {
    const res = await target.client.create({
      body: { message: target.message("resp-8"), conversation_id: randomUUID() },
    });
    trackIfCreated(target, res, target.primary);
    expectStatus(res, 404, "create continuing an unknown conversation");
    expectErrorCode(res, CONVERSATION_NOT_FOUND, "create continuing an unknown conversation");
  },
);
