/**
 * An observed exchange as the suite's own results (HttpResult, StreamResult), so the
 * judgements the active checks make apply to recorded traffic unchanged. A stream body is read
 * through the same SseBody as a live stream.
 */
import { buildTranscript } from "../http/transcript.ts";
import type { Redactor } from "../http/redact.ts";
import { mediaType, tryParseJson } from "../http/response-body.ts";
import { SseBody } from "../http/sse-body.ts";
import type { HttpResult, StreamResult, Transcript } from "../http/types.ts";
import type { ObservedExchange } from "./exchange.ts";

/** Longer bodies are kept whole for judging; this only bounds what one event buffers. */
const MAX_EVENT_BYTES = 16 * 1024 * 1024;

export function transcriptOf(exchange: ObservedExchange, redactor: Redactor): Transcript {
  const { request, response } = exchange;
  return buildTranscript(
    {
      method: request.method,
      url: request.url,
      requestHeaders: { ...request.headers },
      requestBody: request.body,
      status: response?.status,
      responseHeaders: response === undefined ? undefined : { ...response.headers },
      responseBody: response?.body,
      failure:
        exchange.failure ??
        (response !== undefined && !response.complete ? "the response ended before its body did" : undefined),
      durationMs: exchange.durationMs,
    },
    redactor,
  );
}

/** A plain answer; undefined when no response arrived or its body is not known. */
export function httpResultOf(exchange: ObservedExchange, redactor: Redactor): HttpResult | undefined {
  const { response } = exchange;
  if (response?.body === undefined) return undefined;
  return {
    status: response.status,
    headers: { ...response.headers },
    text: response.body,
    json: tryParseJson(response.body),
    transcript: transcriptOf(exchange, redactor),
  };
}

/**
 * A stream answer: its events and problems read from the recorded body (undefined when no
 * response arrived or its body is not known). Chunk boundaries are the recorded ones when
 * known (the proxy); a HAR body counts as one chunk.
 */
export function streamResultOf(exchange: ObservedExchange, redactor: Redactor): StreamResult | undefined {
  const { response } = exchange;
  if (response?.body === undefined) return undefined;
  const transcript = transcriptOf(exchange, redactor);
  const headers = { ...response.headers };
  if (mediaType(headers["content-type"]) !== "text/event-stream") {
    const http = {
      status: response.status,
      headers,
      text: response.body,
      json: tryParseJson(response.body),
      transcript,
    };
    return {
      status: response.status,
      headers,
      events: [],
      terminal: undefined,
      ended: response.complete,
      chunks: 0,
      problems: [
        {
          kind: "not-event-stream",
          detail: `Content-Type is ${JSON.stringify(headers["content-type"] ?? "(none)")}, not text/event-stream`,
        },
      ],
      http,
      transcript,
    };
  }
  const chunks = response.chunks;
  let at = 0;
  const body = new SseBody({ elapsed: () => at, maxBufferSize: MAX_EVENT_BYTES });
  if (chunks === undefined || chunks.length === 0) {
    at = exchange.durationMs;
    body.feed(response.body, 0);
  } else {
    // The proxy recorded each chunk's size and time: feed the body piece by piece as it came.
    const bytes = Buffer.from(response.body, "utf8");
    const decoder = new TextDecoder("utf-8");
    let offset = 0;
    chunks.forEach((chunk, index) => {
      at = chunk.at;
      body.feed(decoder.decode(bytes.subarray(offset, offset + chunk.bytes), { stream: true }), index);
      offset += chunk.bytes;
    });
    const rest = decoder.decode(bytes.subarray(offset));
    if (rest !== "") body.feed(rest, chunks.length - 1);
  }
  if (response.complete) body.ended();
  else body.addProblem("connection-error", exchange.failure ?? "the connection ended before the stream did");
  return {
    status: response.status,
    headers,
    events: body.events,
    terminal: body.terminal,
    ended: response.complete,
    chunks: chunks?.length ?? 1,
    problems: body.problems,
    http: undefined,
    transcript,
  };
}
