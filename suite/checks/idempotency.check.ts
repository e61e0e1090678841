/**
 * Idempotency (IDEM-1 … IDEM-8).
 * Create cost: 13 of its own at most on a conforming target — IDEM-1/2: 2 (a keyed continuation
 * and its replay), IDEM-3: 1, IDEM-4: 2, IDEM-5: 2 to 4 (each burst's winner, plus every loser the
 * target answers with a replay rather than 409: the reference fake replays the plain burst's one),
 * IDEM-7: 2 per other identity, IDEM-8: 2; 12 on the reference fake. Replays and changed payloads
 * over every shape of body, key and timing are the interaction property's (interactions.check.ts):
 * its own operations are the evidence, so no scenario here spends creates on them again.
 * Declared: 15, since the requests a conforming target refuses (the 409s, IDEM-6) may be
 * accepted by a broken one.
 * IDEM-1…5 continue the run's shared conversation for refused changes (1 create, shared with
 * the auth, scope and plain-create checks; suite/checks/support/fixtures.ts), IDEM-5 takes one
 * exchange's growth from the shared small conversation, and the retried-create check reads the
 * shared long conversation (their creates are the fixtures').
 * Smoke profile: IDEM-1/2 and IDEM-4, 4 creates of its own.
 * Every "nothing consumed" is relative (the conversation's total before and after, never a
 * count) and is read after the quiet window, so a listing that lags cannot hide a change.
 * Replaying a key across the plain and stream operations is not required by the spec and not checked.
 */
import { SpecResponseResult, type SpecCompletedResponse } from "../../schemas/index.ts";
import { check } from "./runtime/check.ts";
import { HarnessError } from "../http/errors.ts";
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
} from "../judgements/expect.ts";
import type { HttpResult, StreamResult } from "../http/types.ts";
import type { Target } from "./runtime/types.ts";
import { acceptExchange, totalOf, trackIfCreated } from "./support/conversations.ts";
import { sameId } from "../judgements/answers.ts";
import { longConversation, refusalTarget, smallConversation } from "./support/fixtures.ts";
import type { RecordedExchange } from "./support/recorded.ts";
import { afterQuietWindow, listingGrownPast } from "./support/settled.ts";
import { skipCheck } from "./support/skip.ts";
import { completedOf } from "../judgements/streams.ts";
import { openStream, trackStream } from "./support/streams.ts";

const BURST = 2;

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

/** The total once the listing shows an exchange made after `before`, and anything still being persisted has landed. */
async function settledTotal(target: Target, conversationId: string, before: number, context: string): Promise<number> {
  await listingGrownPast(target, conversationId, before, context);
  return totalAfterQuietWindow(target, conversationId);
}

/** The total read after the quiet window: a change the target is still persisting shows by then. */
async function totalAfterQuietWindow(target: Target, conversationId: string): Promise<number> {
  await afterQuietWindow(target);
  return totalOf(target, conversationId);
}

/** A keyed request body continuing the shared conversation for refused changes, and its total now. */
async function keyedContinuation(target: Target, label: string) {
  const { conversationId } = await target.shared(refusalTarget);
  const key = target.idempotencyKey(label);
  const body = { message: target.message(label), conversation_id: conversationId };
  // Read now, not from the fixture: earlier checks may have changed it legitimately.
  return { conversationId, key, body, prior: await totalOf(target, conversationId) };
}

check(
  ["IDEM-1", "IDEM-2"],
  "the same key with the same payload returns the earlier result and does not consume the operation again",
  { creates: 2, uses: [refusalTarget], smoke: true },
  async (target) => {
    const { conversationId, key, body, prior } = await keyedContinuation(target, "idem-1");
    const first = acceptExchange(
      target,
      await target.client.create({ body, idempotencyKey: key }),
      "first keyed create",
    );
    expectThat(
      sameId(first.conversationId, conversationId),
      "the keyed create did not continue its conversation",
      first.http,
    );
    const before = await settledTotal(target, conversationId, prior, "listing after the first keyed create");
    const replay = await target.client.create({ body, idempotencyKey: key });
    expect2xx(replay, "replay with the same key and payload");
    const replayed = expectJson(SpecResponseResult, replay, "replay with the same key and payload");
    expectSameResult(replayed, first.result, "replay", first.http, replay);
    // The right body is not enough: a replay that appends again is caught here.
    expectSame(
      await totalAfterQuietWindow(target, conversationId),
      before,
      "the conversation's total after the replay",
      replay,
    );
  },
);

/** How much a recorded exchange grew its conversation, once its listing settled. */
const growth = (e: RecordedExchange) => e.listingAfter.page.total - e.totalBefore;

/** The answer a shared conversation recorded for one of its exchanges. */
function answerOf(e: RecordedExchange): Evidence {
  const answer = e.http ?? e.stream;
  if (answer === undefined) throw new HarnessError("internal", `the recorded exchange "${e.message}" holds no answer`);
  return answer;
}

check(
  ["IDEM-2"],
  "a create retried after 429 or 503 under the same key took effect once (the long conversation's growth per exchange)",
  { creates: 0, uses: [longConversation] },
  async (target) => {
    const { exchanges } = await target.shared(longConversation);
    // Streams count too: a stream refused with 503 is retried under its key like a plain create.
    const retried = exchanges.filter((e) => e.attempts > 1);
    if (retried.length === 0) skipCheck("no create of the long conversation was refused with 429/503 in this run");
    const once = exchanges.filter((e) => e.attempts === 1);
    if (once.length === 0)
      skipCheck("every create of the long conversation was retried, so none shows what one exchange adds");
    const most = Math.max(...once.map(growth));
    for (const e of retried) {
      // A retry the target ran again adds the exchange twice: more than any create that was not retried.
      expectThat(
        growth(e) <= most,
        `the ${e.kind} create sending "${e.message}" was answered "try later" ${e.attempts - 1} time(s) and retried under its key; it grew ` +
          `the conversation by ${growth(e)} messages, while a create that was not retried grew it by at most ${most}`,
        answerOf(e),
        e.listingAfter.http,
      );
    }
  },
);

check(
  ["IDEM-3"],
  "the same key with a different payload is 409 and consumes nothing",
  { creates: 2, uses: [refusalTarget] },
  async (target) => {
    const { conversationId, key, body, prior } = await keyedContinuation(target, "idem-3");
    acceptExchange(target, await target.client.create({ body, idempotencyKey: key }), "first keyed create");
    const before = await settledTotal(target, conversationId, prior, "listing after the first keyed create");
    // Only metadata differs: a fingerprint of the message alone is caught. A changed message is
    // covered by IDEM-4, SSE-10, ERR-1 and the random-payload property.
    const changed = { ...body, metadata: { changed: "yes" } };
    const res = await target.client.create({ body: changed, idempotencyKey: key, retryInUse: false });
    trackIfCreated(target, res, target.primary);
    expectStatus(res, 409, "the same key with added metadata");
    expectSame(
      await totalAfterQuietWindow(target, conversationId),
      before,
      "the conversation's total after the 409",
      res,
    );
  },
);

check(
  ["IDEM-4"],
  "the stream operation replays the same completed response, consumes nothing, and answers 409 to a different payload",
  { creates: 3, uses: [refusalTarget], smoke: true },
  async (target) => {
    const { conversationId, key, body, prior } = await keyedContinuation(target, "idem-4");
    const first = await openStream(target, { body, idempotencyKey: key });
    trackStream(target, first);
    expectStreamOk(first, "first keyed stream");
    const firstCompleted = completedOf(first, "first keyed stream");
    expectThat(
      sameId(firstCompleted.conversation_id, conversationId),
      "the keyed stream did not continue its conversation",
      first,
    );
    const before = await settledTotal(target, conversationId, prior, "listing after the first keyed stream");

    const replay = await openStream(target, { body, idempotencyKey: key });
    trackStream(target, replay);
    expectStreamOk(replay, "stream replay with the same key and payload");
    expectSameResult(completedOf(replay, "stream replay"), firstCompleted, "stream replay", first, replay);
    expectSame(
      await totalAfterQuietWindow(target, conversationId),
      before,
      "the conversation's total after the stream replay",
      replay,
    );

    const changedBody = { ...body, message: `${body.message} (changed)` };
    const changed = await openStream(target, { body: changedBody, idempotencyKey: key, retryInUse: false });
    trackStream(target, changed);
    expectStatus(changed, 409, "stream with the same key and a different payload");
    expectSame(
      await totalAfterQuietWindow(target, conversationId),
      before,
      "the conversation's total after the stream 409",
      changed,
    );
  },
);

check(
  ["IDEM-5"],
  "concurrent requests with the same key and payload take effect once, on both operations",
  { creates: 2 * BURST, uses: [smallConversation, refusalTarget] },
  async (target) => {
    // One exchange's worth of messages, as this target listed the small conversation's plain continuation.
    const measured = (await target.shared(smallConversation)).exchanges.find((e, i) => i > 0 && e.kind === "plain");
    if (measured === undefined)
      throw new HarnessError("internal", "the shared small conversation holds no plain continuation");
    const worth = growth(measured);
    expectThat(
      worth >= 1,
      `the small conversation's plain continuation did not add to it (total ${measured.totalBefore} → ${measured.listingAfter.page.total})`,
      measured.listingAfter.http,
    );
    const { conversationId } = await target.shared(refusalTarget);
    const t1 = await totalOf(target, conversationId);

    // The losers' 409s are answers to judge, not "try later": each request is sent once.
    const plainBody = { message: target.message("idem-5-plain"), conversation_id: conversationId };
    const plainKey = target.idempotencyKey("idem-5-plain");
    const plain = await Promise.all(
      Array.from({ length: BURST }, () =>
        target.client.create({ body: plainBody, idempotencyKey: plainKey, retryInUse: false }),
      ),
    );
    plain.forEach((res) => trackIfCreated(target, res, target.primary));
    expectAgreeingWinners(plain, "plain burst");
    const t2 = await settledTotal(target, conversationId, t1, "listing after the plain burst");
    expectSame(
      t2 - t1,
      worth,
      `growth of the total after ${BURST} concurrent plain creates with one key (one exchange adds ${worth})`,
      ...plain,
    );

    const streamBody = { message: target.message("idem-5-stream"), conversation_id: conversationId };
    const streamKey = target.idempotencyKey("idem-5-stream");
    const streams = await Promise.all(
      Array.from({ length: BURST }, () =>
        openStream(target, { body: streamBody, idempotencyKey: streamKey, retryInUse: false }),
      ),
    );
    streams.forEach((s) => trackStream(target, s));
    expectAgreeingStreamWinners(streams, "stream burst");
    const t3 = await settledTotal(target, conversationId, t2, "listing after the stream burst");
    expectSame(
      t3 - t2,
      worth,
      `growth of the total after ${BURST} concurrent streams with one key (one exchange adds ${worth})`,
      ...streams,
    );
  },
);

/** At least one request of a burst succeeded, and every success carries the same result. */
function expectAgreeingWinners(answers: HttpResult[], context: string): void {
  const winners = answers.filter((res) => is2xx(res.status));
  expectThat(
    winners.length >= 1,
    `${context}: no request succeeded (statuses ${answers.map((r) => r.status).join(", ")})`,
    ...answers,
  );
  const results = winners.map((res) => expectJson(SpecResponseResult, res, context));
  const [first, ...rest] = results;
  for (const other of rest) if (first) expectSameResult(other, first, `${context}: two successes`, ...winners);
}

function expectAgreeingStreamWinners(answers: StreamResult[], context: string): void {
  const winners = answers.filter((s) => is2xx(s.status) && s.terminal === "response.completed");
  expectThat(
    winners.length >= 1,
    `${context}: no stream completed (statuses ${answers.map((s) => s.status).join(", ")})`,
    ...answers,
  );
  const results = winners.map((s) => completedOf(s, context));
  const [first, ...rest] = results;
  for (const other of rest) if (first) expectSameResult(other, first, `${context}: two completed streams`, ...winners);
}

check(["IDEM-6"], "a create without an Idempotency-Key is rejected with 400 or 422", { creates: 1 }, async (target) => {
  const res = await target.client.create({ body: { message: target.message("idem-6") }, idempotencyKey: null });
  trackIfCreated(target, res, target.primary);
  expectValidationRefusal(res, "create without Idempotency-Key");
});

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
  const mine = acceptExchange(
    target,
    await target.client.create({ body, idempotencyKey: key }),
    "create under the primary scope",
  );
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
    const first = acceptExchange(
      target,
      await target.client.create({ rawBody: compact, idempotencyKey: key }),
      "first keyed create",
    );
    const before = await settledTotal(target, first.conversationId, 0, "listing after the first keyed create");
    const replay = await target.client.create({ rawBody: reordered, idempotencyKey: key });
    trackIfCreated(target, replay, target.primary);
    expect2xx(replay, "the same payload with other key order and whitespace");
    expectSameResult(expectJson(SpecResponseResult, replay, "replay"), first.result, "replay", first.http, replay);
    expectSame(
      await totalAfterQuietWindow(target, first.conversationId),
      before,
      "the conversation's total after the replay",
      replay,
    );
  },
);
