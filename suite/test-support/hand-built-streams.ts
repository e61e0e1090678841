/**
 * Streams built by hand for the tests of the judgements that read them: a well-formed event
 * stream by default, with the events, headers or ending a test names.
 */
import { EVENT } from "../../schemas/index.ts";
import type { StreamResult, TimedEvent, Transcript } from "../http/types.ts";

const TRANSCRIPT: Transcript = {
  request: {
    method: "POST",
    url: "http://127.0.0.1:1/v1/agents/a/responses/stream",
    headers: { authorization: "Bearer sk-f…(redacted)" },
  },
  response: { status: 200, headers: { "content-type": "text/event-stream" }, body: "" },
  durationMs: 3,
};

/** One event whose data is `payload` as JSON. */
export function event(name: string | undefined, payload: unknown, chunk = 0): TimedEvent {
  const data = JSON.stringify(payload);
  return { event: name, data, json: payload, id: undefined, at: chunk, chunk };
}

const CONVERSATION = "3f1c2a5e-7b8d-4e9f-a0b1-c2d3e4f5a6b7";

/** created, one delta per piece, completed with the pieces joined: a conforming stream. */
export function completedEvents(...pieces: string[]): TimedEvent[] {
  return [
    event(EVENT.created, { type: EVENT.created }),
    ...pieces.map((delta) => event(EVENT.delta, { type: EVENT.delta, delta })),
    event(EVENT.completed, {
      type: EVENT.completed,
      response: { conversation_id: CONVERSATION, output_text: pieces.join(""), citations: [] },
    }),
  ];
}

export function handBuiltStream(overrides: Partial<StreamResult> = {}): StreamResult {
  const events = overrides.events ?? completedEvents("Hel", "lo");
  const terminal = events.find((e) => e.event === EVENT.completed || e.event === EVENT.error)?.event;
  return {
    status: 200,
    headers: { "content-type": "text/event-stream" },
    events,
    terminal: terminal === EVENT.completed || terminal === EVENT.error ? terminal : undefined,
    ended: true,
    chunks: 1,
    problems: [],
    http: undefined,
    transcript: TRANSCRIPT,
    ...overrides,
  };
}
