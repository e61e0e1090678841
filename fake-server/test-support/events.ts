/**
 * A stream's events checked for the fake's tests: each against the fake's event schemas, in the
 * spec's order (created, deltas, one terminal event, nothing after).
 */
import type { EventSourceMessage } from "eventsource-parser";
import { expect } from "vitest";
import { StreamEvent, type CompletedEvent, type CreatedEvent, type ErrorEvent } from "../../schemas/index.ts";

export interface ParsedStream {
  created: CreatedEvent;
  deltas: string[];
  terminal: CompletedEvent | ErrorEvent;
}

/**
 * Checks a whole stream against the fake's event schemas and the spec's order:
 * response.created, deltas, then exactly one terminal event and nothing after it.
 */
export function parseStream(events: readonly EventSourceMessage[]): ParsedStream {
  const parsed = events.map((message) => {
    const event = StreamEvent.parse(JSON.parse(message.data));
    expect(message.event).toBe(event.type);
    return event;
  });
  const [created, ...rest] = parsed;
  const terminal = rest.pop();
  if (created?.type !== "response.created") throw new Error(`first event is ${created?.type}, not response.created`);
  if (terminal?.type !== "response.completed" && terminal?.type !== "error") {
    throw new Error(`last event is ${terminal?.type}, not a terminal event`);
  }
  const deltas = rest.map((event) => {
    if (event.type !== "response.output_text.delta")
      throw new Error(`${event.type} between created and the terminal event`);
    return event.delta;
  });
  return { created, deltas, terminal };
}

export function completedOf(stream: ParsedStream): CompletedEvent {
  if (stream.terminal.type !== "response.completed") throw new Error(`the stream ended with ${stream.terminal.type}`);
  return stream.terminal;
}
