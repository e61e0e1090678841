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

interface StreamRequest {
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
const AFTER_TERMINAL_GRACE_MAX_MS = 2000;

type StopReason = Extract<
  StreamProblemKind,
  "first-event-timeout" | "idle-timeout" | "total-timeout" | "byte-cap" | "after-terminal"
>;

export interface StreamReadOptions {
  /** Aborts the request (the check's deadline). */
  signal?: AbortSignal | undefined;
  /** Called for each event as it is parsed (progress; tests use it to order server writes). */
  onEvent?: ((event: TimedEvent) => void) | undefined;
}

/** Timers the reader owns: every one is cleared when the read ends, whatever ended it. */
class Timers {
  readonly #live = new Set<NodeJS.Timeout>();

  start(ms: number, onFire: () => void): NodeJS.Timeout {
    const timer = setTimeout(() => {
      this.#live.delete(timer);
      onFire();
    }, ms);
    this.#live.add(timer);
    return timer;
  }

  clear(timer: NodeJS.Timeout | undefined): void {
    if (timer === undefined) return;
    clearTimeout(timer);
    this.#live.delete(timer);
  }

  clearAll(): void {
    for (const timer of this.#live) clearTimeout(timer);
    this.#live.clear();
  }
}

export async function readStream(
  dispatcher: Dispatcher,
  request: StreamRequest,
  limits: StreamLimits,
  redactor: Redactor,
  options: StreamReadOptions = {},
): Promise<StreamResult> {
  const reading = new StreamReading(request, limits, redactor, options);
  let response: Dispatcher.ResponseData | undefined;
  try {
    response = await reading.send(dispatcher);
    if (response === undefined) return reading.result();
    reading.takeHeaders(response);
    if (!reading.isEventStream()) {
      await reading.readOtherBody(response);
      return reading.result();
    }
    await reading.readEvents(response);
    return reading.result();
  } finally {
    reading.release(response);
  }
}

/** One stream being read: what came so far, the timers that bound it, and why it stopped. */
class StreamReading {
  readonly #request: StreamRequest;
  readonly #limits: StreamLimits;
  readonly #redactor: Redactor;
  readonly #signal: AbortSignal | undefined;
  readonly #started = performance.now();
  readonly #controller = new AbortController();
  readonly #timers = new Timers();
  readonly #body: SseBody;
  readonly #decoder = new TextDecoder("utf-8");

  #status = 0;
  #headers: Record<string, string> = {};
  #http: HttpResult | undefined;
  #ended = false;
  #chunks = 0;
  #bytes = 0;
  #bodyPreview = "";
  #stopReason: StopReason | undefined;
  #firstEventTimer: NodeJS.Timeout | undefined;
  #idleTimer: NodeJS.Timeout | undefined;

  constructor(request: StreamRequest, limits: StreamLimits, redactor: Redactor, options: StreamReadOptions) {
    this.#request = request;
    this.#limits = limits;
    this.#redactor = redactor;
    this.#signal = options.signal;
    this.#body = new SseBody({
      elapsed: () => Math.round((performance.now() - this.#started) * 10) / 10,
      maxBufferSize: limits.maxStreamBytes,
      onEvent: (event) => {
        options.onEvent?.(event);
        this.#disarmFirstEvent();
      },
      onTerminal: () => this.#afterTerminal(),
    });
    this.#startDeadlines();
  }

  // The reader enforces every timeout itself: undici's are only a backstop.
  #startDeadlines(): void {
    const { firstEventTimeoutMs, streamTimeoutMs } = this.#limits;
    this.#firstEventTimer = this.#timers.start(firstEventTimeoutMs, () =>
      this.#stop(
        "first-event-timeout",
        this.#status === 0
          ? `no response headers within ${firstEventTimeoutMs} ms (${BUFFERING_PROXY_HINT})`
          : `no event within ${firstEventTimeoutMs} ms of the request (${BUFFERING_PROXY_HINT})`,
      ),
    );
    this.#timers.start(streamTimeoutMs, () =>
      this.#stop("total-timeout", `the stream did not finish within ${streamTimeoutMs} ms`),
    );
  }

  #disarmFirstEvent(): void {
    this.#timers.clear(this.#firstEventTimer);
    this.#firstEventTimer = undefined;
  }

  #armIdle(): void {
    this.#timers.clear(this.#idleTimer);
    this.#idleTimer = this.#timers.start(this.#limits.idleTimeoutMs, () =>
      this.#stop(
        "idle-timeout",
        `nothing received for ${this.#limits.idleTimeoutMs} ms (after ${this.#body.events.length} events)`,
      ),
    );
  }

  // After the terminal event only the end of the response is awaited, and not for long.
  #afterTerminal(): void {
    this.#timers.clear(this.#idleTimer);
    this.#idleTimer = undefined;
    const grace = Math.min(this.#limits.idleTimeoutMs, AFTER_TERMINAL_GRACE_MAX_MS);
    this.#timers.start(grace, () => this.#stop("after-terminal", "response did not end after terminal event"));
  }

  /** Records why the read stopped (the first reason only) and aborts the request. */
  #stop(reason: StopReason, detail: string): void {
    if (this.#stopReason !== undefined || this.#ended) return;
    this.#stopReason = reason;
    this.#body.addProblem(reason, detail);
    this.#controller.abort();
  }

  /**
   * Sends the request. Undefined when no response came (the problem is recorded); throws
   * HarnessError only when the harness itself cannot reach the target.
   */
  async send(dispatcher: Dispatcher): Promise<Dispatcher.ResponseData | undefined> {
    const signal = this.#signal;
    try {
      return await dispatcher.request({
        origin: this.#request.origin,
        path: this.#request.path,
        method: this.#request.method,
        headers: this.#request.headers,
        body: this.#request.body,
        signal: signal ? AbortSignal.any([this.#controller.signal, signal]) : this.#controller.signal,
        // The reader's own timers decide; undici's are a backstop just beyond them.
        headersTimeout: this.#limits.streamTimeoutMs + 1000,
        bodyTimeout: this.#limits.streamTimeoutMs + 1000,
      });
    } catch (error) {
      if (this.#stopReason !== undefined) return undefined;
      if (signal?.aborted) {
        this.#body.addProblem("connection-error", `cancelled: ${this.#cancelReason()} before the response headers`);
        return undefined;
      }
      const failure = classifyNetworkError(error);
      if (failure.side === "harness") {
        throw new HarnessError(
          failure.kind,
          this.#redactor.scrub(`cannot reach ${this.#request.origin}: ${describeNetworkError(error)}`),
        );
      }
      this.#body.addProblem(
        failure.kind === "timeout" ? "first-event-timeout" : "connection-error",
        `before the response headers: ${describeNetworkError(error)}`,
      );
      return undefined;
    }
  }

  takeHeaders(response: Dispatcher.ResponseData): void {
    this.#status = response.statusCode;
    this.#headers = flattenHeaders(response.headers);
  }

  isEventStream(): boolean {
    return mediaType(this.#headers["content-type"]) === "text/event-stream";
  }

  /** A body that is not an event stream: read it whole (capped) as a plain HTTP answer. */
  async readOtherBody(response: Dispatcher.ResponseData): Promise<void> {
    this.#body.addProblem(
      "not-event-stream",
      `Content-Type is ${preview(this.#headers["content-type"] ?? "(none)")}, not text/event-stream`,
    );
    this.#disarmFirstEvent();
    let text = "";
    try {
      text = await readCappedText(response.body, this.#limits.maxResponseBytes, this.#headers["content-length"]);
      this.#ended = true;
    } catch (error) {
      if (error instanceof TargetError) this.#body.addProblem("byte-cap", error.message);
      else if (this.#stopReason === undefined)
        this.#body.addProblem("connection-error", `while reading the body: ${describeNetworkError(error)}`);
    }
    this.#bodyPreview = text.slice(0, TRANSCRIPT_BODY_CHARS + 1);
    this.#http = {
      status: this.#status,
      headers: this.#headers,
      text,
      json: tryParseJson(text),
      transcript: this.#transcript(),
    };
  }

  /** Feeds the event stream chunk by chunk to the SSE parser, within the byte cap and the idle timeout. */
  async readEvents(response: Dispatcher.ResponseData): Promise<void> {
    const body = this.#body;
    this.#armIdle();
    try {
      for await (const chunk of response.body as AsyncIterable<Buffer>) {
        this.#bytes += chunk.length;
        if (this.#bytes > this.#limits.maxStreamBytes) {
          this.#stop("byte-cap", `the stream passed the cap of ${this.#limits.maxStreamBytes} bytes`);
          break;
        }
        if (body.terminal === undefined) this.#armIdle();
        const index = this.#chunks;
        this.#chunks++;
        const text = this.#decoder.decode(chunk, { stream: true });
        if (this.#bodyPreview.length <= TRANSCRIPT_BODY_CHARS) this.#bodyPreview += text;
        body.feed(text, index);
      }
      if (this.#stopReason === undefined) {
        this.#ended = true;
        body.feed(this.#decoder.decode(), Math.max(0, this.#chunks - 1));
      }
    } catch (error) {
      if (this.#stopReason === undefined) {
        body.addProblem(
          "connection-error",
          this.#signal?.aborted
            ? `cancelled: ${this.#cancelReason()} while the stream was being read`
            : `the stream broke after ${body.events.length} events: ${describeNetworkError(error)}`,
        );
      }
    }
    if (this.#stopReason === undefined && !this.#signal?.aborted) body.ended();
  }

  /** Who stopped the read: a string reason given to the abort (the client dropping the stream), else the check's deadline. */
  #cancelReason(): string {
    const reason: unknown = this.#signal?.reason;
    return typeof reason === "string" ? reason : "the check's deadline passed";
  }

  // No stream outlives the reader: timers cleared, request aborted, body destroyed.
  release(response: Dispatcher.ResponseData | undefined): void {
    this.#timers.clearAll();
    this.#controller.abort();
    if (response !== undefined && !response.body.destroyed) response.body.destroy();
  }

  #transcript() {
    const problems = this.#body.problems;
    const failure = problems.length > 0 ? problems.map((p) => `${p.kind}: ${p.detail}`).join("; ") : undefined;
    return buildTranscript(
      {
        method: this.#request.method,
        url: `${this.#request.origin}${this.#request.path}`,
        requestHeaders: this.#request.headers,
        requestBody: this.#request.body,
        status: this.#status === 0 ? undefined : this.#status,
        responseHeaders: this.#headers,
        responseBody: this.#bodyPreview,
        failure,
        durationMs: performance.now() - this.#started,
      },
      this.#redactor,
    );
  }

  result(): StreamResult {
    return {
      status: this.#status,
      headers: this.#headers,
      events: this.#body.events,
      terminal: this.#body.terminal,
      ended: this.#ended,
      chunks: this.#chunks,
      problems: this.#body.problems,
      http: this.#http,
      transcript: this.#transcript(),
    };
  }
}
