/**
 * Reads one streaming request: bytes → text (UTF-8, split characters kept whole) → lines →
 * events (eventsource-parser) → timed events. It records what the target did as problems
 * instead of throwing, enforces every timeout and the byte cap itself, and always aborts the
 * request in `finally`, so no stream outlives the reader.
 * It throws only when the harness cannot reach the target at all (HarnessError).
 */

import { createParser, type EventSourceMessage } from "eventsource-parser";
import type { Dispatcher } from "undici";
import { classifyNetworkError, describeNetworkError, HarnessError, TargetError } from "./errors.ts";
import type { Redactor } from "./redact.ts";
import { flattenHeaders, mediaType, readCappedText, tryParseJson } from "./response-body.ts";
import { buildTranscript, TRANSCRIPT_BODY_CHARS } from "./transcript.ts";
import type { HttpResult, StreamProblem, StreamProblemKind, StreamResult, TimedEvent } from "./types.ts";

export interface StreamLimits {
  firstEventTimeoutMs: number;
  idleTimeoutMs: number;
  streamTimeoutMs: number;
  /** Cap on the event-stream body. */
  maxStreamBytes: number;
  /** Cap on a body that turned out not to be an event stream. */
  maxResponseBytes: number;
}

export interface StreamRequest {
  origin: string;
  path: string;
  method: "POST";
  headers: Record<string, string>;
  body: string | undefined;
}

const TERMINAL = new Set(["response.completed", "error"]);
/** How long to wait, after the terminal event, for the server to end the response. */
export const AFTER_TERMINAL_GRACE_MAX_MS = 2000;
/** Problems of one kind beyond this are counted, not listed. */
const MAX_PROBLEMS_PER_KIND = 10;

/** Splits text into lines that keep their terminator (CRLF, LF or CR); the last piece may be partial. */
function splitLines(text: string): string[] {
  return text.match(/[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+$/g) ?? [];
}

function preview(text: string, max = 200): string {
  return JSON.stringify(text.length <= max ? text : `${text.slice(0, max)}…`);
}

type StopReason = Extract<StreamProblemKind, "first-event-timeout" | "idle-timeout" | "total-timeout" | "byte-cap" | "after-terminal">;

export interface StreamReadOptions {
  /** Aborts the request (the check's deadline). */
  signal?: AbortSignal | undefined;
  /** Called for each event as it is parsed (progress; tests use it to order server writes). */
  onEvent?: ((event: TimedEvent) => void) | undefined;
}

export async function readStream(
  dispatcher: Dispatcher,
  request: StreamRequest,
  limits: StreamLimits,
  redactor: Redactor,
  options: StreamReadOptions = {},
): Promise<StreamResult> {
  const { signal } = options;
  const started = performance.now();
  const elapsed = () => Math.round((performance.now() - started) * 10) / 10;
  const controller = new AbortController();
  const combined = signal ? AbortSignal.any([controller.signal, signal]) : controller.signal;

  const events: TimedEvent[] = [];
  const problems: StreamProblem[] = [];
  const problemCounts = new Map<StreamProblemKind, number>();
  const addProblem = (kind: StreamProblemKind, detail: string) => {
    const count = (problemCounts.get(kind) ?? 0) + 1;
    problemCounts.set(kind, count);
    if (count <= MAX_PROBLEMS_PER_KIND) problems.push({ kind, detail });
  };

  let status = 0;
  let headers: Record<string, string> = {};
  let http: HttpResult | undefined;
  let terminal: StreamResult["terminal"];
  let ended = false;
  let chunks = 0;
  let bytes = 0;
  let bodyPreview = "";
  let stopReason: StopReason | undefined;

  const timers = new Set<NodeJS.Timeout>();
  const stop = (reason: StopReason, detail: string) => {
    if (stopReason !== undefined || ended) return;
    stopReason = reason;
    addProblem(reason, detail);
    controller.abort();
  };
  const startTimer = (ms: number, onFire: () => void): NodeJS.Timeout => {
    const timer = setTimeout(() => {
      timers.delete(timer);
      onFire();
    }, ms);
    timers.add(timer);
    return timer;
  };
  const clearTimer = (timer: NodeJS.Timeout | undefined) => {
    if (timer === undefined) return;
    clearTimeout(timer);
    timers.delete(timer);
  };

  let firstEventTimer: NodeJS.Timeout | undefined = startTimer(limits.firstEventTimeoutMs, () =>
    stop("first-event-timeout", status === 0
      ? `no response headers within ${limits.firstEventTimeoutMs} ms`
      : `no event within ${limits.firstEventTimeoutMs} ms of the request`));
  startTimer(limits.streamTimeoutMs, () =>
    stop("total-timeout", `the stream did not finish within ${limits.streamTimeoutMs} ms`));
  let idleTimer: NodeJS.Timeout | undefined;
  const armIdle = () => {
    clearTimer(idleTimer);
    idleTimer = startTimer(limits.idleTimeoutMs, () =>
      stop("idle-timeout", `nothing received for ${limits.idleTimeoutMs} ms (after ${events.length} events)`));
  };

  // Parsing state: which chunk is being fed, and whether the terminal event has passed.
  let currentChunk = 0;
  let afterTerminalReported = false;
  let pendingSinceEvent = "";
  const reportAfterTerminal = (detail: string) => {
    if (afterTerminalReported) return;
    afterTerminalReported = true;
    addProblem("after-terminal", detail);
  };

  const onEvent = (message: EventSourceMessage) => {
    const json = tryParseJson(message.data);
    const event: TimedEvent = {
      event: message.event,
      data: message.data,
      json,
      id: message.id,
      at: elapsed(),
      chunk: currentChunk,
    };
    events.push(event);
    options.onEvent?.(event);
    if (firstEventTimer !== undefined) {
      clearTimer(firstEventTimer);
      firstEventTimer = undefined;
    }
    if (json === undefined) addProblem("non-json-data", `event ${events.length} (${message.event ?? "no event line"}) has data that is not JSON: ${preview(message.data)}`);
    // Without an event line, the payload's own type is the best evidence of what the event was.
    const jsonType = typeof json === "object" && json !== null ? (json as { type?: unknown }).type : undefined;
    const name = message.event ?? (typeof jsonType === "string" ? jsonType : undefined);
    if (terminal !== undefined) {
      reportAfterTerminal(`event ${preview(name ?? "(unnamed)")} came after the terminal ${terminal} event`);
    } else if (name !== undefined && TERMINAL.has(name)) {
      terminal = name as StreamResult["terminal"];
      onTerminal();
    }
  };

  const onTerminal = () => {
    clearTimer(idleTimer);
    idleTimer = undefined;
    const grace = Math.min(limits.idleTimeoutMs, AFTER_TERMINAL_GRACE_MAX_MS);
    startTimer(grace, () => stop("after-terminal", "response did not end after terminal event"));
  };

  const parser = createParser({ onEvent, maxBufferSize: limits.maxStreamBytes });
  const decoder = new TextDecoder("utf-8");
  let dropLeadingLf = false;

  /** Feeds one chunk's text line by line, so anything after the terminal event is seen exactly. */
  const feedText = (raw: string) => {
    let text = raw;
    if (dropLeadingLf && text.startsWith("\n")) text = text.slice(1);
    dropLeadingLf = false;
    // A CR at the end of a chunk is a complete line terminator; if an LF follows in the next
    // chunk, it is the second half of a CRLF pair and must not count as another line.
    if (text.endsWith("\r")) {
      text += "\n";
      dropLeadingLf = true;
    }
    for (const line of splitLines(text)) {
      const content = line.replace(/[\r\n]+$/, "");
      if (terminal !== undefined && content.trim() !== "") {
        reportAfterTerminal(`bytes came after the terminal ${terminal} event: ${preview(line)}`);
      }
      // Remember the fields of an event still being built, to explain a body that stops inside one.
      if (content === "") pendingSinceEvent = "";
      else if (!content.startsWith(":")) pendingSinceEvent += line;
      parser.feed(line);
    }
  };

  let response: Dispatcher.ResponseData | undefined;
  try {
    try {
      response = await dispatcher.request({
        origin: request.origin,
        path: request.path,
        method: request.method,
        headers: request.headers,
        body: request.body,
        signal: combined,
        // The reader's own timers decide; undici's are a backstop just beyond them.
        headersTimeout: limits.streamTimeoutMs + 1000,
        bodyTimeout: limits.streamTimeoutMs + 1000,
      });
    } catch (error) {
      if (stopReason !== undefined) return finish();
      if (signal?.aborted) {
        addProblem("connection-error", "cancelled: the check's deadline passed before the response headers");
        return finish();
      }
      const failure = classifyNetworkError(error);
      if (failure.side === "harness") {
        throw new HarnessError(failure.kind, redactor.scrub(`cannot reach ${request.origin}: ${describeNetworkError(error)}`));
      }
      addProblem(failure.kind === "timeout" ? "first-event-timeout" : "connection-error", `before the response headers: ${describeNetworkError(error)}`);
      return finish();
    }

    status = response.statusCode;
    headers = flattenHeaders(response.headers);

    if (mediaType(headers["content-type"]) !== "text/event-stream") {
      addProblem("not-event-stream", `Content-Type is ${preview(headers["content-type"] ?? "(none)")}, not text/event-stream`);
      clearTimer(firstEventTimer);
      firstEventTimer = undefined;
      let text = "";
      try {
        text = await readCappedText(response.body, limits.maxResponseBytes, headers["content-length"]);
        ended = true;
      } catch (error) {
        if (error instanceof TargetError) addProblem("byte-cap", error.message);
        else if (stopReason === undefined) addProblem("connection-error", `while reading the body: ${describeNetworkError(error)}`);
      }
      bodyPreview = text.slice(0, TRANSCRIPT_BODY_CHARS + 1);
      http = {
        status,
        headers,
        text,
        json: tryParseJson(text),
        transcript: transcript(),
      };
      return finish();
    }

    armIdle();
    try {
      for await (const chunk of response.body as AsyncIterable<Buffer>) {
        bytes += chunk.length;
        if (bytes > limits.maxStreamBytes) {
          stop("byte-cap", `the stream passed the cap of ${limits.maxStreamBytes} bytes`);
          break;
        }
        if (terminal === undefined) armIdle();
        currentChunk = chunks;
        chunks++;
        const text = decoder.decode(chunk, { stream: true });
        if (bodyPreview.length <= TRANSCRIPT_BODY_CHARS) bodyPreview += text;
        feedText(text);
      }
      if (stopReason === undefined) {
        ended = true;
        feedText(decoder.decode());
      }
    } catch (error) {
      if (stopReason === undefined) {
        addProblem("connection-error", signal?.aborted
          ? "cancelled: the check's deadline passed while the stream was being read"
          : `the stream broke after ${events.length} events: ${describeNetworkError(error)}`);
      }
    }
    if (terminal === undefined && stopReason === undefined && !signal?.aborted) {
      const trailing = pendingSinceEvent.trim();
      addProblem("no-terminal", `the body ended without response.completed or error (after ${events.length} events)` +
        (trailing !== "" ? `; it ended inside an unterminated event: ${preview(trailing)}` : ""));
    }
    return finish();
  } finally {
    for (const timer of timers) clearTimeout(timer);
    timers.clear();
    controller.abort();
    if (response !== undefined && !response.body.destroyed) response.body.destroy();
  }

  function transcript() {
    const failure = problems.length > 0 ? problems.map((p) => `${p.kind}: ${p.detail}`).join("; ") : undefined;
    return buildTranscript({
      method: request.method,
      url: `${request.origin}${request.path}`,
      requestHeaders: request.headers,
      requestBody: request.body,
      status: status === 0 ? undefined : status,
      responseHeaders: headers,
      responseBody: bodyPreview,
      failure,
      durationMs: performance.now() - started,
    }, redactor);
  }

  function finish(): StreamResult {
    return {
      status,
      headers,
      events,
      terminal,
      ended,
      chunks,
      problems,
      http,
      transcript: transcript(),
    };
  }
}
