/**
 * An event-stream body, fed text as it arrives: lines (CRLF, LF or CR; a CR at a chunk's end
 * completes its line) → events (eventsource-parser) → timed events, with what the target did
 * wrong recorded as problems (data that is not JSON, anything after the terminal event, a body
 * ending inside an event or before a terminal event). The live stream reader and the traffic
 * judge both read bodies through it, so a recorded stream is judged exactly as a live one.
 */
import { createParser, type EventSourceMessage } from "eventsource-parser";
import { tryParseJson } from "./response-body.ts";
import type { StreamProblem, StreamProblemKind, StreamResult, TimedEvent } from "./types.ts";

const TERMINAL = new Set(["response.completed", "error"]);
/** Problems of one kind beyond this are counted, not listed. */
const MAX_PROBLEMS_PER_KIND = 10;

/** Splits text into lines that keep their terminator (CRLF, LF or CR); the last piece may be partial. */
function splitLines(text: string): string[] {
  return text.match(/[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+$/g) ?? [];
}

export function preview(text: string, max = 200): string {
  return JSON.stringify(text.length <= max ? text : `${text.slice(0, max)}…`);
}

interface SseBodyOptions {
  /** Milliseconds since the request started, for each event's `at`. */
  elapsed: () => number;
  maxBufferSize: number;
  /** Called for each event as it is parsed. */
  onEvent?: ((event: TimedEvent) => void) | undefined;
  /** Called once, when the first terminal event is parsed. */
  onTerminal?: (() => void) | undefined;
}

export class SseBody {
  readonly events: TimedEvent[] = [];
  readonly problems: StreamProblem[] = [];
  terminal: StreamResult["terminal"];
  private readonly problemCounts = new Map<StreamProblemKind, number>();
  private readonly parser;
  private currentChunk = 0;
  private afterTerminalReported = false;
  private pendingSinceEvent = "";
  private dropLeadingLf = false;

  constructor(private readonly options: SseBodyOptions) {
    this.parser = createParser({ onEvent: (message) => this.onEvent(message), maxBufferSize: options.maxBufferSize });
  }

  addProblem(kind: StreamProblemKind, detail: string): void {
    const count = (this.problemCounts.get(kind) ?? 0) + 1;
    this.problemCounts.set(kind, count);
    if (count <= MAX_PROBLEMS_PER_KIND) this.problems.push({ kind, detail });
  }

  /** Feeds one network chunk's text (chunk `index`), line by line, so anything after the terminal event is seen exactly. */
  feed(raw: string, index: number): void {
    this.currentChunk = index;
    let text = raw;
    if (this.dropLeadingLf && text.startsWith("\n")) text = text.slice(1);
    this.dropLeadingLf = false;
    // A CR at the end of a chunk is a complete line terminator; if an LF follows in the next
    // chunk, it is the second half of a CRLF pair and must not count as another line.
    if (text.endsWith("\r")) {
      text += "\n";
      this.dropLeadingLf = true;
    }
    for (const line of splitLines(text)) {
      const content = line.replace(/[\r\n]+$/, "");
      if (this.terminal !== undefined && content.trim() !== "") {
        this.reportAfterTerminal(`bytes came after the terminal ${this.terminal} event: ${preview(line)}`);
      }
      // Remember the fields of an event still being built, to explain a body that stops inside one.
      if (content === "") this.pendingSinceEvent = "";
      else if (!content.startsWith(":")) this.pendingSinceEvent += line;
      this.parser.feed(line);
    }
  }

  /** The body ended (or was cut): a missing terminal event becomes a problem. */
  ended(): void {
    if (this.terminal !== undefined) return;
    const trailing = this.pendingSinceEvent.trim();
    this.addProblem(
      "no-terminal",
      `the body ended without response.completed or error (after ${this.events.length} events)` +
        (trailing !== "" ? `; it ended inside an unterminated event: ${preview(trailing)}` : ""),
    );
  }

  reportAfterTerminal(detail: string): void {
    if (this.afterTerminalReported) return;
    this.afterTerminalReported = true;
    this.addProblem("after-terminal", detail);
  }

  private onEvent(message: EventSourceMessage): void {
    const json = tryParseJson(message.data);
    const event: TimedEvent = {
      event: message.event,
      data: message.data,
      json,
      id: message.id,
      at: this.options.elapsed(),
      chunk: this.currentChunk,
    };
    this.events.push(event);
    this.options.onEvent?.(event);
    if (json === undefined)
      this.addProblem(
        "non-json-data",
        `event ${this.events.length} (${message.event ?? "no event line"}) has data that is not JSON: ${preview(message.data)}`,
      );
    // Without an event line, the payload's own type is the best evidence of what the event was.
    const jsonType = typeof json === "object" && json !== null ? (json as { type?: unknown }).type : undefined;
    const name = message.event ?? (typeof jsonType === "string" ? jsonType : undefined);
    if (this.terminal !== undefined) {
      this.reportAfterTerminal(`event ${preview(name ?? "(unnamed)")} came after the terminal ${this.terminal} event`);
    } else if (name !== undefined && TERMINAL.has(name)) {
      this.terminal = name as StreamResult["terminal"];
      this.options.onTerminal?.();
    }
  }
}
