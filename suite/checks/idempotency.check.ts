/**
 * Idempotency (IDEM-1 … IDEM-8).
 * Create cost: 33 at most — IDEM-1/2: 3, IDEM-3: 3, IDEM-4: 4, IDEM-5: 2 + 2 bursts of 4,
 * IDEM-6: 1, IDEM-7: 2 + 2, IDEM-8: 2, the random-payload property: 2 runs of 3.
 * Every "nothing consumed" is relative: the conversation's total before and after, never a count.
 * Replaying a key across the plain and stream operations is not required by the spec and not checked.
 */
import fc from "fast-check";
import { SpecResponseResult, type SpecCompletedResponse } from "../../schemas/index.ts";
import { mutate, payloadMutation, payloadParts, requestBody } from "../harness/arbitraries.ts";
import { check } from "../harness/check.ts";
import {
  expect2xx,
  expectJson,
  expectSame,
  expectStatus,
  expectStreamOk,
  expectThat,
  expectValidationRefusal,
  is2xx,
  type Evidence,
} from "../harness/expect.ts";
import type { HttpResult, StreamResult, Target } from "../harness/types.ts";
import {
  acceptExchange,
  continueConversation,
  sameId,
  startConversation,
  totalOf,
  trackIfCreated,
} from "./support/conversations.ts";
import { completedOf, openStream, trackStream } from "./support/streams.ts";

const BURST = 4;
const PROPERTY_RUNS = 2;

/** The parts of a result a replay must repeat (unknown extra fields may differ). */
function expectSameResult(
  actual: SpecResponseResult | SpecCompletedResponse,
  expected: SpecResponseResult | SpecCompletedResponse,
  context: string,
  ...evidence: Evidence[]
): void {
  expectThat(
    sameId(actual.conversation_id, expected.conversation_id),
    `${context}: conversation_id ${actual.conversation_id} differs from the earlier ${expected.conversation_id}`,
    ...evidence,
  );
  const text = (r: SpecResponseResult | SpecCompletedResponse) => ("response" in r ? r.response : r.output_text);
  expectSame(text(actual), text(expected), `${context}: the answer text`, ...evidence);
  expectSame(actual.citations, expected.citations, `${context}: the citations`, ...evidence);
}

/** A conversation with one exchange, and a keyed request body that continues it. */
async function keyedContinuation(target: Target, label: string) {
  const { conversationId } = await startConversation(target, `${label}-start`);
  const key = target.idempotencyKey(label);
  const body = { message: target.message(label), conversation_id: conversationId };
  return { conversationId, key, body };
}

check(
  ["IDEM-1", "IDEM-2"],
  "the same key with the same payload returns the earlier result and does not consume the operation again",
  { creates: 3 },
  async (target) => {
    const { conversationId, key, body } = await keyedContinuation(target, "idem-1");
    const first = acceptExchange(target, await target.client.create({ body, idempotencyKey: key }), "first keyed create");
    expectThat(sameId(first.conversationId, conversationId), "the keyed create did not continue its conversation", first.http);
    const before = await totalOf(target, conversationId);
    const replay = await target.client.create({ body, idempotencyKey: key });
    expect2xx(replay, "replay with the same key and payload");
    const replayed = expectJson(SpecResponseResult, replay, "replay with the same key and payload");
    expectSameResult(replayed, first.result, "replay", first.http, replay);
    // The right body is not enough: a replay that appends again is caught here.
    expectSame(await totalOf(target, conversationId), before, "the conversation's total after the replay", replay);
  },
);

check(
  ["IDEM-3"],
  "the same key with a different payload is 409 and consumes nothing",
  { creates: 3 },
  async (target) => {
    const { conversationId, key, body } = await keyedContinuation(target, "idem-3");
    acceptExchange(target, await target.client.create({ body, idempotencyKey: key }), "first keyed create");
    const before = await totalOf(target, conversationId);
    // Only metadata differs: a fingerprint of the message alone is caught. A changed message is
    // covered by IDEM-4, SSE-10, ERR-1 and the random-payload property.
    const changed = { ...body, metadata: { changed: "yes" } };
    const res = await target.client.create({ body: changed, idempotencyKey: key });
    trackIfCreated(target, res, target.primary);
    expectStatus(res, 409, "the same key with added metadata");
    expectSame(await totalOf(target, conversationId), before, "the conversation's total after the 409", res);
  },
);

check(
  ["IDEM-4"],
  "the stream operation replays the same completed response, consumes nothing, and answers 409 to a different payload",
  { creates: 4 },
  async (target) => {
    const { conversationId, key, body } = await keyedContinuation(target, "idem-4");
    const first = await openStream(target, { body, idempotencyKey: key });
    trackStream(target, first);
    expectStreamOk(first, "first keyed stream");
    const firstCompleted = completedOf(first, "first keyed stream");
    expectThat(sameId(firstCompleted.conversation_id, conversationId), "the keyed stream did not continue its conversation", first);
    const before = await totalOf(target, conversationId);

    const replay = await openStream(target, { body, idempotencyKey: key });
    trackStream(target, replay);
    expectStreamOk(replay, "stream replay with the same key and payload");
    expectSameResult(completedOf(replay, "stream replay"), firstCompleted, "stream replay", first, replay);
    expectSame(await totalOf(target, conversationId), before, "the conversation's total after the stream replay", replay);

    const changed = await openStream(target, { body: { ...body, message: `${body.message} (changed)` }, idempotencyKey: key });
    trackStream(target, changed);
    expectStatus(changed, 409, "stream with the same key and a different payload");
    expectSame(await totalOf(target, conversationId), before, "the conversation's total after the stream 409", changed);
  },
);

check(
  ["IDEM-5"],
  "concurrent requests with the same key and payload take effect once, on both operations",
  { creates: 2 + 2 * BURST },
  async (target) => {
    const { conversationId } = await startConversation(target, "idem-5-start");
    // One exchange's worth of messages, measured on this target rather than assumed.
    const t0 = await totalOf(target, conversationId);
    await continueConversation(target, conversationId, "idem-5-measure");
    const t1 = await totalOf(target, conversationId);
    const worth = t1 - t0;
    expectThat(worth >= 1, `an exchange did not add to the conversation (total ${t0} → ${t1})`);

    const plainBody = { message: target.message("idem-5-plain"), conversation_id: conversationId };
    const plainKey = target.idempotencyKey("idem-5-plain");
    const plain = await Promise.all(
      Array.from({ length: BURST }, () => target.client.create({ body: plainBody, idempotencyKey: plainKey })),
    );
    plain.forEach((res) => trackIfCreated(target, res, target.primary));
    expectAgreeingWinners(plain, "plain burst");
    const t2 = await totalOf(target, conversationId);
    expectSame(t2 - t1, worth, `growth of the total after ${BURST} concurrent plain creates with one key (one exchange adds ${worth})`, ...plain);

    const streamBody = { message: target.message("idem-5-stream"), conversation_id: conversationId };
    const streamKey = target.idempotencyKey("idem-5-stream");
    const streams = await Promise.all(
      Array.from({ length: BURST }, () => openStream(target, { body: streamBody, idempotencyKey: streamKey })),
    );
    streams.forEach((s) => trackStream(target, s));
    expectAgreeingStreamWinners(streams, "stream burst");
    const t3 = await totalOf(target, conversationId);
    expectSame(t3 - t2, worth, `growth of the total after ${BURST} concurrent streams with one key (one exchange adds ${worth})`, ...streams);
  },
);

/** At least one request of a burst succeeded, and every success carries the same result. */
function expectAgreeingWinners(answers: HttpResult[], context: string): void {
  const winners = answers.filter((res) => is2xx(res.status));
  expectThat(winners.length >= 1, `${context}: no request succeeded (statuses ${answers.map((r) => r.status).join(", ")})`, ...answers);
  const results = winners.map((res) => expectJson(SpecResponseResult, res, context));
  const [first, ...rest] = results;
  for (const other of rest) if (first) expectSameResult(other, first, `${context}: two successes`, ...winners);
}

function expectAgreeingStreamWinners(answers: StreamResult[], context: string): void {
  const winners = answers.filter((s) => is2xx(s.status) && s.terminal === "response.completed");
  expectThat(winners.length >= 1, `${context}: no stream completed (statuses ${answers.map((s) => s.status).join(", ")})`, ...answers);
  const results = winners.map((s) => completedOf(s, context));
  const [first, ...rest] = results;
  for (const other of rest) if (first) expectSameResult(other, first, `${context}: two completed streams`, ...winners);
}

check(
  ["IDEM-6"],
  "a create without an Idempotency-Key is rejected with 400 or 422",
  { creates: 1 },
  async (target) => {
    const res = await target.client.create({ body: { message: target.message("idem-6") }, idempotencyKey: null });
    trackIfCreated(target, res, target.primary);
    expectValidationRefusal(res, "create without Idempotency-Key");
  },
);

check(
  ["IDEM-7"],
  "a key reused by another API key never replays the first key's result",
  { creates: 2, needs: ["otherApiKey"] },
  async (target) => {
    await expectKeyIsScoped(target, "other API key", target.otherKey);
  },
);

check(
  ["IDEM-7"],
  "a key reused on another agent never replays the first agent's result",
  { creates: 2, needs: ["otherAgent"] },
  async (target) => {
    await expectKeyIsScoped(target, "other agent", target.otherAgent);
  },
);

async function expectKeyIsScoped(target: Target, scope: string, other: Target["otherKey"]): Promise<void> {
  expectThat(other !== undefined, `the ${scope} identity is not configured`);
  const key = target.idempotencyKey("idem-7");
  const body = { message: target.message("idem-7") };
  const mine = acceptExchange(target, await target.client.create({ body, idempotencyKey: key }), "create under the primary scope");
  const theirs = await target.client.create({ as: other, body, idempotencyKey: key });
  expect2xx(theirs, `the same key and payload under the ${scope}`);
  const result = expectJson(SpecResponseResult, theirs, `the same key and payload under the ${scope}`);
  expectThat(
    !sameId(result.conversation_id, mine.conversationId),
    `the ${scope} got the primary scope's conversation ${mine.conversationId} back: the key replayed across scopes`,
    mine.http,
    theirs,
  );
  target.track(result.conversation_id, other);
}

check(
  ["IDEM-8"],
  "payloads equal as JSON but differing in key order and whitespace count as the same payload",
  { creates: 2 },
  async (target) => {
    const key = target.idempotencyKey("idem-8");
    const message = JSON.stringify(target.message("idem-8"));
    const compact = `{"message":${message},"metadata":{"a":"1","b":"2"}}`;
    const reordered = `{\n  "metadata" : { "b" : "2",\t"a" : "1" },\n  "message" : ${message}\n}\n`;
    const first = acceptExchange(target, await target.client.create({ rawBody: compact, idempotencyKey: key }), "first keyed create");
    const before = await totalOf(target, first.conversationId);
    const replay = await target.client.create({ rawBody: reordered, idempotencyKey: key });
    trackIfCreated(target, replay, target.primary);
    expect2xx(replay, "the same payload with other key order and whitespace");
    expectSameResult(expectJson(SpecResponseResult, replay, "replay"), first.result, "replay", first.http, replay);
    expectSame(await totalOf(target, first.conversationId), before, "the conversation's total after the replay", replay);
  },
);

check(
  ["IDEM-1", "IDEM-2", "IDEM-3"],
  "for random payloads, a replay returns the earlier result without consuming, and a changed payload is 409",
  { creates: 3 * PROPERTY_RUNS },
  async (target) => {
    const conversations: string[] = [];
    await fc.assert(
      fc.asyncProperty(payloadParts(), payloadMutation(), async (parts, mutation) => {
        const continued = parts.continueConversation ? conversations.at(-1) : undefined;
        const body = requestBody(`${target.message("idem-property")} ${parts.text}`, parts, continued);
        const key = target.idempotencyKey("idem-property");
        const first = acceptExchange(target, await target.client.create({ body, idempotencyKey: key }), "first keyed create");
        conversations.push(first.conversationId);
        const before = await totalOf(target, first.conversationId);

        const replay = await target.client.create({ body, idempotencyKey: key });
        trackIfCreated(target, replay, target.primary);
        expect2xx(replay, "replay");
        expectSameResult(expectJson(SpecResponseResult, replay, "replay"), first.result, "replay", first.http, replay);
        expectSame(await totalOf(target, first.conversationId), before, "the conversation's total after the replay", replay);

        const changed = await target.client.create({ body: mutate(body, mutation), idempotencyKey: key });
        trackIfCreated(target, changed, target.primary);
        expectStatus(changed, 409, `the same key with a changed payload (${mutation.kind})`);
        expectSame(await totalOf(target, first.conversationId), before, "the conversation's total after the 409", changed);
      }),
      // No shrinking: every run costs creates on the target.
      { ...target.fc(PROPERTY_RUNS), endOnFailure: true },
    );
  },
);
