/**
 * Reads one streaming request: bytes → text (UTF-8, split characters kept whole) → lines →
 * events (eventsource-parser) → timed events. It records what the target did as problems
 * instead of throwing, enforces every timeout and the byte cap itself, and always aborts the
 * request in `finally`, so no stream outlives the reader.
 * It throws only when the harness cannot reach the target at all (HarnessError).
 */

import type { Dispatcher } from "undici";
import { classifyNetworkError, describeNetworkError, HarnessError, TargetError } from "./errors.ts";
import type { Redactor } from "./redact.ts";
import { flattenHeaders, mediaType, readCappedText, tryParseJson } from "./response-body.ts";
import { preview, SseBody } from "./sse-body.ts";
import { buildTranscript, TRANSCRIPT_BODY_CHARS } from "./transcript.ts";
import type { HttpResult, StreamProblemKind, StreamResult, TimedEvent } from "./types.ts";

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

/**
 * The usual cause of a stream that arrives all at once, or not at all before a timeout, behind a
 * reverse proxy: it buffers the response. Said wherever the suite sees either.
 */
export const BUFFERING_PROXY_HINT =
  "a buffering proxy in front of the service may be holding the stream: turn its buffering off for this route " +
  "(nginx: `proxy_buffering off;`, or the service sends the response header `X-Accel-Buffering: no`)";

/** How long to wait, after the terminal event, for the server to end the response. */
export const AFTER_TERMINAL_GRACE_MAX_MS = 2000;

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

  let firstEventTimer: NodeJS.Timeout | undefined;
  const body: SseBody = new SseBody({
    elapsed,
    maxBufferSize: limits.maxStreamBytes,
    onEvent: (event) => {
      options.onEvent?.(event);
      if (firstEventTimer !== undefined) {
        clearTimer(firstEventTimer);
        firstEventTimer = undefined;
      }
    },
    onTerminal: () => onTerminal(),
  });
  const { events, problems } = body;
  const addProblem = (kind: StreamProblemKind, detail: string) => body.addProblem(kind, detail);

  let status = 0;
  let headers: Record<string, string> = {};
  let http: HttpResult | undefined;
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

  firstEventTimer = startTimer(limits.firstEventTimeoutMs, () =>
    stop("first-event-timeout", status === 0
      ? `no response headers within ${limits.firstEventTimeoutMs} ms (${BUFFERING_PROXY_HINT})`
      : `no event within ${limits.firstEventTimeoutMs} ms of the request (${BUFFERING_PROXY_HINT})`));
  startTimer(limits.streamTimeoutMs, () =>
    stop("total-timeout", `the stream did not finish within ${limits.streamTimeoutMs} ms`));
  let idleTimer: NodeJS.Timeout | undefined;
  const armIdle = () => {
    clearTimer(idleTimer);
    idleTimer = startTimer(limits.idleTimeoutMs, () =>
      stop("idle-timeout", `nothing received for ${limits.idleTimeoutMs} ms (after ${events.length} events)`));
  };

  const onTerminal = () => {
    clearTimer(idleTimer);
    idleTimer = undefined;
    const grace = Math.min(limits.idleTimeoutMs, AFTER_TERMINAL_GRACE_MAX_MS);
    startTimer(grace, () => stop("after-terminal", "response did not end after terminal event"));
  };

  const decoder = new TextDecoder("utf-8");

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
        if (body.terminal === undefined) armIdle();
        const index = chunks;
        chunks++;
        const text = decoder.decode(chunk, { stream: true });
        if (bodyPreview.length <= TRANSCRIPT_BODY_CHARS) bodyPreview += text;
        body.feed(text, index);
      }
      if (stopReason === undefined) {
        ended = true;
        body.feed(decoder.decode(), Math.max(0, chunks - 1));
      }
    } catch (error) {
      if (stopReason === undefined) {
        addProblem("connection-error", signal?.aborted
          ? "cancelled: the check's deadline passed while the stream was being read"
          : `the stream broke after ${events.length} events: ${describeNetworkError(error)}`);
      }
    }
    if (stopReason === undefined && !signal?.aborted) body.ended();
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
      terminal: body.terminal,
      ended,
      chunks,
      problems,
      http,
      transcript: transcript(),
    };
  }
}
