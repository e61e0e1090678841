/**
 * Streaming (SSE-1 … SSE-10).
 * Create cost: 16 at most — SSE-1..SSE-5: 1 each, SSE-7: 3 (property runs), SSE-6: 1,
 * SSE-8: 2, SSE-9: 1, SSE-10: 1 + 3 refused.
 * Tolerated everywhere (the spec leaves them open): comments and heartbeats, `retry:` and `id:`
 * lines, CRLF, any chunking, any `response.created` payload, extra fields, one delta or none.
 */
import fc from "fast-check";
import { EVENT, SpecDeltaEvent, SpecErrorEvent, SpecMessagePage } from "../../schemas/index.ts";
import { unicodeText } from "../harness/arbitraries.ts";
import { check } from "../harness/check.ts";
import {
  expect2xx,
  expectEventStream,
  expectJson,
  expectNon2xx,
  expectPlainHttpAnswer,
  expectSame,
  expectShape,
  expectStreamOk,
  expectThat,
  fail,
} from "../harness/expect.ts";
import type { StreamResult, Target } from "../harness/types.ts";
import { continueConversation, sameId, totalOf } from "./support/conversations.ts";
import { completedOf, deltaTexts, eventNames, observedStreams, openStream, trackStream } from "./support/streams.ts";
import { skipCheck } from "./support/skip.ts";

const SSE7_RUNS = 3;

/** Streams a message that starts a new conversation, and tracks that conversation. */
async function streamNew(target: Target, label: string, extra = ""): Promise<StreamResult> {
  const result = await openStream(target, { body: { message: `${target.message(label)}${extra}` } });
  trackStream(target, result);
  return result;
}

const TERMINAL = new Set<string>([EVENT.completed, EVENT.error]);

check(
  ["SSE-1"],
  "the stream answers 2xx with Content-Type text/event-stream",
  { creates: 1 },
  async (target) => {
    expectEventStream(await streamNew(target, "sse-1"), "stream");
  },
);

check(
  ["SSE-2"],
  "every event has an event line and JSON data whose type equals the event name",
  { creates: 1 },
  async (target) => {
    const s = await streamNew(target, "sse-2");
    expectEventStream(s, "stream");
    expectThat(s.events.length > 0, "the stream carried no events", s);
    s.events.forEach((event, index) => {
      expectThat(event.event !== undefined, `event #${index + 1} has no event: line (data ${JSON.stringify(event.data)})`, s);
      const json = event.json as { type?: unknown } | undefined;
      expectThat(
        typeof json === "object" && json !== null && !Array.isArray(json),
        `event #${index + 1} (${event.event}) does not carry a JSON object: ${JSON.stringify(event.data)}`,
        s,
      );
      expectSame(json.type, event.event, `the type of event #${index + 1}`, s);
    });
  },
);

check(
  ["SSE-3"],
  "events come as created, deltas, one terminal event last, and the response then ends",
  { creates: 1 },
  async (target) => {
    const s = await streamNew(target, "sse-3");
    expectEventStream(s, "stream");
    const names = eventNames(s);
    const order = `[${names.join(", ")}]`;
    expectThat(names[0] === EVENT.created, `the first event is not ${EVENT.created}: ${order}`, s);
    const terminal = names.findIndex((name) => TERMINAL.has(name));
    expectThat(terminal !== -1, `the stream ended without ${EVENT.completed} or ${EVENT.error}: ${order}`, s);
    names.slice(1, terminal).forEach((name, i) => {
      expectThat(name === EVENT.delta, `event #${i + 2} between created and the terminal event is ${name}: ${order}`, s);
    });
    expectThat(terminal === names.length - 1, `events follow the terminal event: ${order}`, s);
    for (const problem of s.problems) {
      if (problem.kind === "after-terminal" || problem.kind === "no-terminal") fail(`${problem.kind}: ${problem.detail}`, s);
    }
    expectThat(s.ended, `the response did not end after the terminal event (${s.problems.map((p) => p.kind).join(", ")})`, s);
  },
);

check(
  ["SSE-4"],
  "every delta payload is {type, delta: string}",
  { creates: 1 },
  async (target) => {
    const s = await streamNew(target, "sse-4");
    expectEventStream(s, "stream");
    s.events
      .filter((e) => e.event === EVENT.delta)
      .forEach((e, i) => expectShape(SpecDeltaEvent, e.json, `delta #${i + 1}`, s));
  },
);

check(
  ["SSE-5"],
  "the completed payload is {type, response: {conversation_id, output_text, citations}}",
  { creates: 1 },
  async (target) => {
    const s = await streamNew(target, "sse-5");
    expectEventStream(s, "stream");
    completedOf(s, "stream");
  },
);

check(
  ["SSE-7"],
  "the deltas concatenated equal output_text, for random Unicode messages",
  { creates: SSE7_RUNS },
  async (target) => {
    await fc.assert(
      fc.asyncProperty(unicodeText(), async (text) => {
        const s = await streamNew(target, "sse-7", ` ${text}`);
        expectStreamOk(s, "stream");
        const completed = completedOf(s, "stream");
        expectSame(deltaTexts(s).join(""), completed.output_text, "the deltas concatenated, compared with output_text", s);
      }),
      // No shrinking: every run costs a create on the target.
      { ...target.fc(SSE7_RUNS), endOnFailure: true },
    );
  },
);

/** SSE-6 on one stream holding an error event: the payload, nothing after it, and the response ended. */
function expectErrorEndsStream(s: StreamResult): void {
  const index = s.events.findIndex((e) => e.event === EVENT.error);
  expectShape(SpecErrorEvent, s.events[index]?.json, "the error event's payload", s);
  expectThat(index === s.events.length - 1, `events follow the error event: [${eventNames(s).join(", ")}]`, s);
  const after = s.problems.find((p) => p.kind === "after-terminal");
  expectThat(after === undefined, `the stream went on after the error event: ${after?.detail}`, s);
  expectThat(s.ended, `the response did not end after the error event (${s.problems.map((p) => p.kind).join(", ")})`, s);
}

check(
  ["SSE-6"],
  "an error event carries code and message and ends the stream (provoked with the stream-error header, else as observed)",
  { creates: 1 },
  async (target) => {
    const hook = target.streamErrorHeader;
    if (hook !== undefined) {
      const s = await openStream(target, {
        body: { message: target.message("sse-6") },
        headers: { [hook.name.toLowerCase()]: hook.value },
      });
      trackStream(target, s);
      expectEventStream(s, `stream sent with ${hook.name}`);
      expectThat(
        s.events.some((e) => e.event === EVENT.error),
        `the stream sent with ${hook.name}: ${hook.value} carried no error event: [${eventNames(s).join(", ")}]`,
        s,
      );
      expectErrorEndsStream(s);
    } else {
      // Without the hook an error event cannot be provoked: stream a little, then judge
      // every stream this run has read so far.
      await streamNew(target, "sse-6");
    }
    const streams = observedStreams();
    const withError = streams.filter((s) => s.events.some((e) => e.event === EVENT.error));
    if (withError.length === 0) {
      skipCheck(
        `no error event observed in ${streams.length} streams of this run; set --stream-error-header ` +
          "(CONFORMANCE_STREAM_ERROR_HEADER) to a header that makes the target end a stream with an error event",
      );
    }
    withError.forEach(expectErrorEndsStream);
  },
);

check(
  ["SSE-8"],
  "a streamed exchange belongs to its conversation: the listing shows it and it can be continued",
  { creates: 2 },
  async (target) => {
    const s = await streamNew(target, "sse-8");
    expectStreamOk(s, "stream");
    const { conversation_id: conversationId } = completedOf(s, "stream");
    const listed = await target.client.list(conversationId);
    expect2xx(listed, "listing the streamed conversation");
    const page = expectJson(SpecMessagePage, listed, "listing the streamed conversation");
    expectThat(sameId(page.conversation.id, conversationId), `the listing names conversation ${page.conversation.id}`, listed);
    expectThat(page.total >= 1 && page.items.length >= 1, "the streamed exchange is not in the conversation's listing", s, listed);
    await continueConversation(target, conversationId, "sse-8-continue");
    const after = await totalOf(target, conversationId);
    expectThat(after > page.total, `continuing the streamed conversation did not grow it (total ${page.total} → ${after})`, listed);
  },
);

check(
  ["SSE-9"],
  "a multi-delta stream is delivered as it is produced, not buffered until the end",
  { creates: 1 },
  async (target) => {
    // Only this check's own stream is judged: a replayed stream may fairly be sent at once.
    const s = await streamNew(target, "sse-9", " Please answer in a few sentences.");
    expectStreamOk(s, "stream");
    const deltaCount = s.events.filter((e) => e.event === EVENT.delta).length;
    if (deltaCount < 2) skipCheck(`the stream had ${deltaCount} delta(s), so incremental delivery cannot be judged`);
    const deltas = s.events.filter((e) => e.event === EVENT.delta || e.event === EVENT.completed);
    const chunks = new Set(deltas.map((e) => e.chunk));
    expectThat(chunks.size > 1, `all ${deltas.length} delta and completed events arrived in one network read`, s);
    const first = deltas[0];
    const last = deltas[deltas.length - 1];
    expectThat(
      first !== undefined && last !== undefined && last.at > first.at,
      "the first delta and the completed event arrived at the same moment",
      s,
    );
  },
);

check(
  ["SSE-10"],
  "failures before the stream starts are plain HTTP errors with a JSON body, not event streams",
  { creates: 4 },
  async (target) => {
    const key = target.idempotencyKey("sse-10");
    const body = { message: target.message("sse-10") };
    const first = await openStream(target, { body, idempotencyKey: key });
    trackStream(target, first);
    expectStreamOk(first, "first keyed stream");
    const failures: [string, StreamResult][] = [
      ["a stream without a key", await openStream(target, { as: { ...target.primary, apiKey: null }, body })],
      ["a stream without a message", await openStream(target, { body: { metadata: { source: "conformance" } } })],
      ["a stream reusing a key with a different payload", await openStream(target, {
        body: { message: `${body.message} (changed)` },
        idempotencyKey: key,
      })],
    ];
    for (const [label, s] of failures) {
      trackStream(target, s);
      expectNon2xx(s, label);
      const http = expectPlainHttpAnswer(s, label);
      expectThat(http.json !== undefined, `${label}: the error body is not JSON: ${JSON.stringify(http.text.slice(0, 200))}`, s);
    }
  },
);
