/**
 * Streaming (SSE-1 … SSE-10).
 * Create cost: 2 of its own at most (declared 5): SSE-6: 1 (the provoked error event);
 * SSE-10: 1, plus 3 requests the target must refuse (a refused create costs nothing, but a
 * broken target may accept them, so they are declared). Everything else reads streams the run
 * already made: SSE-1…5, SSE-7, SSE-8 and SSE-9 judge the shared small conversation's streamed
 * continuation, and in the full profile SSE-7 also every stream of the shared long conversation
 * (suite/checks/support/fixtures.ts; their creates are the fixtures', shared with other families).
 * Smoke profile: SSE-1…9 (SSE-7 on the small conversation only), 1 create of its own (SSE-6);
 * SSE-10, a SHOULD whose 4 declared creates would need headroom, runs in the full profile only.
 * Tolerated everywhere (the spec leaves them open): comments and heartbeats, `retry:` and `id:`
 * lines, CRLF, any chunking, any `response.created` payload, extra fields, one delta or none.
 * A stream that timed out before its terminal event leaves a check inconclusive, not failed.
 */
import { EVENT } from "../../schemas/index.ts";
import { check } from "./runtime/check.ts";
import { HarnessError } from "../http/errors.ts";
import { BUFFERING_PROXY_HINT } from "../http/stream-reader.ts";
import { expectEventStream, expectStreamOk, expectThat } from "../judgements/expect.ts";
import type { StreamResult } from "../http/types.ts";
import type { Target } from "./runtime/types.ts";
import { sameId } from "../judgements/answers.ts";
import { longConversation, smallConversation } from "./support/fixtures.ts";
import type { RecordedConversation, RecordedExchange } from "./support/recorded.ts";
import { completedOf, eventNames } from "../judgements/streams.ts";
import { cutShort, inconclusiveIfCutShort, observedStreams, openStream, trackStream } from "./support/streams.ts";
import { skipCheck } from "./support/skip.ts";
import { judgeErrorEndsStream, judgeReassembly, judgeRefusedStream } from "../judgements/streams.ts";
import { streamRule, type StreamRuleId } from "../judgements/stream-rules.ts";

const SMALL = "the small conversation's streamed continuation";

/** The shared small conversation and its streamed exchange. */
async function smallStream(
  target: Target,
): Promise<{ conversation: RecordedConversation; exchange: RecordedExchange; stream: StreamResult }> {
  const conversation = await target.shared(smallConversation);
  const exchange = conversation.exchanges.find((e) => e.kind === "stream");
  if (exchange?.stream === undefined)
    throw new HarnessError("internal", "the shared small conversation holds no streamed exchange");
  return { conversation, exchange, stream: exchange.stream };
}

const readsSmall = { creates: 0, uses: [smallConversation], smoke: true } as const;

/** A stream's delta events, in arrival order. */
const deltasOf = (stream: StreamResult) => stream.events.filter((e) => e.event === EVENT.delta);

/**
 * A check body judging one rule of the stream table on the small conversation's streamed
 * continuation. A stream the reader's timeouts cut short is inconclusive, except for what
 * already arrived: the headers, and the events a rule that `reads` events can judge as they are.
 */
function onSmallStream(id: StreamRuleId, also?: (s: StreamResult) => void): (target: Target) => Promise<void> {
  const rule = streamRule(id);
  return async (target) => {
    const { stream: s } = await smallStream(target);
    if (rule.reads === "headers") {
      // Only the response headers are judged: without them there is nothing to judge.
      if (s.status === 0) inconclusiveIfCutShort(s, SMALL);
      rule.judge(s, SMALL);
    } else if (rule.reads === "events") {
      // The events that arrived are fine; the ones that never came cannot be judged.
      rule.judge(s, SMALL);
      inconclusiveIfCutShort(s, SMALL);
      expectEventStream(s, SMALL);
    } else {
      inconclusiveIfCutShort(s, SMALL);
      expectEventStream(s, SMALL);
      rule.judge(s, SMALL);
    }
    also?.(s);
  };
}

// Literal calls, not a loop over the table: the coverage gate (suite/checks.test.ts) reads them.
check(["SSE-1"], "the stream answers 2xx with Content-Type text/event-stream", readsSmall, onSmallStream("SSE-1"));

check(
  ["SSE-2"],
  "every event has an event line and JSON data whose type equals the event name",
  readsSmall,
  // No event at all would pass the rule without showing anything.
  onSmallStream("SSE-2", (s) => expectThat(s.events.length > 0, "the stream carried no events", s)),
);

check(
  ["SSE-3"],
  "events come as created, deltas, one terminal event last, and the response then ends",
  readsSmall,
  onSmallStream("SSE-3"),
);

check(["SSE-4"], "every delta payload is {type, delta: string}", readsSmall, onSmallStream("SSE-4"));

check(
  ["SSE-5"],
  "the completed payload is {type, response: {conversation_id, output_text, citations}}",
  readsSmall,
  onSmallStream("SSE-5"),
);

check(
  ["SSE-7"],
  "the deltas concatenated equal output_text (the small conversation's stream)",
  readsSmall,
  onSmallStream("SSE-7"),
);

check(
  ["SSE-7"],
  "the deltas concatenated equal output_text in every stream of the long conversation",
  { creates: 0, uses: [longConversation] },
  async (target) => {
    const streams = (await target.shared(longConversation)).exchanges.flatMap((e) =>
      e.stream === undefined ? [] : [e.stream],
    );
    if (streams.length === 0) skipCheck("the long conversation holds no streamed exchange");
    const label = (i: number) => `stream ${i + 1} of ${streams.length} of the long conversation`;
    // Judge every stream that finished before calling the run inconclusive for one that did not.
    streams.forEach((s, i) => {
      if (cutShort(s) === undefined) judgeReassembly(s, label(i));
    });
    streams.forEach((s, i) => inconclusiveIfCutShort(s, label(i)));
  },
);

check(
  ["SSE-6"],
  "an error event carries code and message and ends the stream (provoked with the stream-error header, else as observed)",
  // Without the header nothing is created: the streams the run has read are judged instead.
  { creates: 1, uses: [smallConversation], smoke: true },
  async (target) => {
    const hook = target.streamErrorHeader;
    if (hook !== undefined) {
      const context = `stream sent with ${hook.name}`;
      const s = await openStream(target, {
        body: { message: target.message("sse-6") },
        headers: { [hook.name.toLowerCase()]: hook.value },
      });
      trackStream(target, s);
      inconclusiveIfCutShort(s, context);
      expectEventStream(s, context);
      expectThat(
        s.events.some((e) => e.event === EVENT.error),
        `the ${context}: ${hook.value} carried no error event: [${eventNames(s).join(", ")}]`,
        s,
      );
      judgeErrorEndsStream(s);
    } else {
      await target.shared(smallConversation);
    }
    const streams = observedStreams();
    const withError = streams.filter((s) => s.events.some((e) => e.event === EVENT.error));
    if (withError.length === 0) {
      skipCheck(
        `no error event observed in ${streams.length} streams of this run; set --stream-error-header ` +
          "(CONFORMANCE_STREAM_ERROR_HEADER) to a header that makes the target end a stream with an error event",
      );
    }
    withError.forEach(judgeErrorEndsStream);
  },
);

check(
  ["SSE-8"],
  "a streamed exchange belongs to its conversation: the listing shows it and it can be continued",
  readsSmall,
  async (target) => {
    // The small conversation's stream continued it by id; the listing after it must have grown.
    const { conversation, exchange, stream: s } = await smallStream(target);
    const id = conversation.conversationId;
    inconclusiveIfCutShort(s, SMALL);
    expectStreamOk(s, SMALL);
    const completed = completedOf(s, SMALL);
    expectThat(
      sameId(completed.conversation_id, id),
      `the completed event names conversation ${completed.conversation_id}, not the continued ${id}`,
      s,
    );
    const { page, http } = exchange.listingAfter;
    expectThat(
      sameId(page.conversation.id, id),
      `the listing of ${id} names conversation ${page.conversation.id}`,
      http,
    );
    expectThat(
      page.total > exchange.totalBefore,
      `the streamed continuation is not in the conversation's listing: total ${exchange.totalBefore} → ${page.total} ` +
        `(read again for up to --settle-ms ${target.settleMs} ms)`,
      s,
      http,
    );
  },
);

check(
  ["SSE-9"],
  "a multi-delta stream is delivered as it is produced, not buffered until the end",
  readsSmall,
  async (target) => {
    const { stream: s } = await smallStream(target);
    inconclusiveIfCutShort(s, SMALL);
    expectStreamOk(s, SMALL);
    // Every finished stream of the run counts: a busy machine may deliver one stream's events
    // in a single read, but a server that buffers buffers them all. (Replays may fairly come
    // at once; one stream delivered in pieces is enough.)
    const judged = [s, ...observedStreams().filter((other) => other !== s)].filter(
      (stream) => deltasOf(stream).length >= 2,
    );
    if (judged.length === 0)
      skipCheck(`no stream of this run had two deltas or more, so incremental delivery cannot be judged`);
    const incremental = judged.some((stream) => {
      const events = [...deltasOf(stream), ...stream.events.filter((e) => e.event === EVENT.completed)];
      const first = events[0];
      const last = events[events.length - 1];
      return (
        new Set(events.map((e) => e.chunk)).size > 1 && first !== undefined && last !== undefined && last.at > first.at
      );
    });
    expectThat(
      incremental,
      `each of the ${judged.length} multi-delta stream(s) of this run arrived with all its delta and completed events in one network read: ${BUFFERING_PROXY_HINT}`,
      s,
    );
  },
);

check(
  ["SSE-10"],
  "failures before the stream starts are plain HTTP errors with a JSON body, not event streams",
  // 1 accepted create; the other 3 must be refused, but a broken target may accept them.
  { creates: 4 },
  async (target) => {
    const key = target.idempotencyKey("sse-10");
    const body = { message: target.message("sse-10") };
    const first = await openStream(target, { body, idempotencyKey: key });
    trackStream(target, first);
    inconclusiveIfCutShort(first, "first keyed stream");
    expectStreamOk(first, "first keyed stream");
    const failures: [string, StreamResult][] = [
      ["a stream without a key", await openStream(target, { as: { ...target.primary, apiKey: null }, body })],
      ["a stream without a message", await openStream(target, { body: { metadata: { source: "conformance" } } })],
      [
        "a stream reusing a key with a different payload",
        await openStream(target, {
          body: { message: `${body.message} (changed)` },
          idempotencyKey: key,
          // The 409 is the answer asked for, not a "still running" to wait out.
          retryInUse: false,
        }),
      ],
    ];
    for (const [label, s] of failures) {
      trackStream(target, s);
      inconclusiveIfCutShort(s, label);
      judgeRefusedStream(s, label);
    }
  },
);
