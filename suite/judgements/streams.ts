/**
 * What one stream must show, judged on the stream alone: the active checks call these on the
 * streams they made, the traffic judge on every stream it observed. Each throws the
 * ExpectationError of its requirement.
 */
import {
  EVENT,
  SpecCompletedEvent,
  SpecDeltaEvent,
  SpecErrorEvent,
  Uuid,
  type SpecCompletedResponse,
} from "../../schemas/index.ts";
import {
  expectEventStream,
  expectNon2xx,
  expectPlainHttpAnswer,
  expectSame,
  expectShape,
  expectStreamOk,
  expectThat,
  fail,
} from "./expect.ts";
import type { StreamResult } from "../http/types.ts";

const TERMINAL = new Set<string>([EVENT.completed, EVENT.error]);

/** The event names in arrival order; an event without an `event:` line shows as "(no event line)". */
export function eventNames(result: StreamResult): string[] {
  return result.events.map((e) => e.event ?? "(no event line)");
}

/** The `delta` strings of the delta events, in order (events whose payload is not a delta are skipped). */
export function deltaTexts(result: StreamResult): string[] {
  return result.events
    .filter((e) => e.event === EVENT.delta)
    .map((e) => (e.json as { delta?: unknown } | undefined)?.delta)
    .filter((d): d is string => typeof d === "string");
}

/** The payload of the (first) response.completed event, validated with the spec schema. */
export function completedOf(result: StreamResult, context: string): SpecCompletedResponse {
  const completed = result.events.find((e) => e.event === EVENT.completed);
  if (completed === undefined) {
    fail(`${context}: expected a ${EVENT.completed} event, got events [${eventNames(result).join(", ")}]`, result);
  }
  return expectShape(SpecCompletedEvent, completed.json, `${context}: the ${EVENT.completed} payload`, result).response;
}

/** The conversation a stream belongs to, from its completed event, or from its created event if that names one. */
export function streamConversationId(result: StreamResult): string | undefined {
  for (const event of result.events) {
    const json = event.json as { conversation_id?: unknown; response?: { conversation_id?: unknown } } | undefined;
    const candidate = event.event === EVENT.completed ? json?.response?.conversation_id : json?.conversation_id;
    if (Uuid.safeParse(candidate).success) return candidate as string;
  }
  return undefined;
}

/** SSE-1: 2xx, declared as text/event-stream. */
export function judgeEventStreamAnswer(s: StreamResult, context: string): void {
  expectEventStream(s, context);
}

/** SSE-2: every event has an event line and a JSON object whose type is the event's name. */
export function judgeEventLines(s: StreamResult): void {
  s.events.forEach((event, index) => {
    expectThat(
      event.event !== undefined,
      `event #${index + 1} has no event: line (data ${JSON.stringify(event.data)})`,
      s,
    );
    const json = event.json as { type?: unknown } | undefined;
    expectThat(
      typeof json === "object" && json !== null && !Array.isArray(json),
      `event #${index + 1} (${event.event}) does not carry a JSON object: ${JSON.stringify(event.data)}`,
      s,
    );
    expectSame(json.type, event.event, `the type of event #${index + 1}`, s);
  });
}

/** SSE-3: created first, then deltas, one terminal event last, and the response ended after it. */
export function judgeEventOrder(s: StreamResult): void {
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
    if (problem.kind === "after-terminal" || problem.kind === "no-terminal")
      fail(`${problem.kind}: ${problem.detail}`, s);
  }
  expectThat(
    s.ended,
    `the response did not end after the terminal event (${s.problems.map((p) => p.kind).join(", ")})`,
    s,
  );
}

/** SSE-4: every delta payload is {type, delta: string}. */
export function judgeDeltaPayloads(s: StreamResult): void {
  s.events
    .filter((e) => e.event === EVENT.delta)
    .forEach((e, i) => expectShape(SpecDeltaEvent, e.json, `delta #${i + 1}`, s));
}

/** SSE-5: the completed payload is {type, response: {conversation_id, output_text, citations}}. */
export function judgeCompletedPayload(s: StreamResult, context: string): void {
  completedOf(s, context);
}

/** SSE-6: an error event carries code and message, nothing follows it, and the response ends. */
export function judgeErrorEndsStream(s: StreamResult): void {
  const index = s.events.findIndex((e) => e.event === EVENT.error);
  expectShape(SpecErrorEvent, s.events[index]?.json, "the error event's payload", s);
  expectThat(index === s.events.length - 1, `events follow the error event: [${eventNames(s).join(", ")}]`, s);
  const after = s.problems.find((p) => p.kind === "after-terminal");
  expectThat(after === undefined, `the stream went on after the error event: ${after?.detail}`, s);
  expectThat(
    s.ended,
    `the response did not end after the error event (${s.problems.map((p) => p.kind).join(", ")})`,
    s,
  );
}

/** SSE-7: the deltas concatenated are the completed event's output_text. */
export function judgeReassembly(s: StreamResult, context: string): void {
  expectStreamOk(s, context);
  const completed = completedOf(s, context);
  expectSame(
    deltaTexts(s).join(""),
    completed.output_text,
    `${context}: the deltas concatenated, compared with output_text`,
    s,
  );
}

/** SSE-10: a stream request refused before it started is a plain HTTP answer with a JSON body. */
export function judgeRefusedStream(s: StreamResult, context: string): void {
  expectNon2xx(s, context);
  const http = expectPlainHttpAnswer(s, context);
  expectThat(
    http.json !== undefined,
    `${context}: the error body is not JSON: ${JSON.stringify(http.text.slice(0, 200))}`,
    s,
  );
}
