/**
 * A small HTTP client of the fake's four operations for its own tests: every header under the
 * test's control (no key, a raw body, no Idempotency-Key), answers read whole, streams parsed or
 * read event by event.
 */
import type { Readable } from "node:stream";
import { createParser, type EventSourceMessage } from "eventsource-parser";
import { request } from "undici";

/** A JSON (or empty) HTTP answer as the tests look at it. */
export interface Reply {
  status: number;
  headers: Record<string, string>;
  text: string;
  /** The body parsed as JSON; undefined for an empty or non-JSON body. */
  json: unknown;
}

export interface CallOptions {
  /** API key; null sends no Authorization header. Default "sk-fake-a". */
  key?: string | null;
  /** Agent path segment. Default "agent-a". */
  agent?: string;
  headers?: Record<string, string>;
}

export interface CreateCallOptions extends CallOptions {
  body?: unknown;
  /** Sent as is instead of `body`. */
  rawBody?: string;
  /** null omits the header. Default: a fresh random key. */
  idempotencyKey?: string | null;
  /** null omits the header. Default application/json. */
  contentType?: string | null;
}

function flatten(headers: Record<string, string | string[] | undefined>): Record<string, string> {
  const flat: Record<string, string> = Object.create(null);
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined) flat[name] = Array.isArray(value) ? value.join(", ") : value;
  }
  return flat;
}

function requestHeaders(options: CallOptions): Record<string, string> {
  const headers: Record<string, string> = {};
  const key = options.key === undefined ? "sk-fake-a" : options.key;
  if (key !== null) headers["authorization"] = `Bearer ${key}`;
  return { ...headers, ...options.headers };
}

function parseJson(text: string): unknown {
  try {
    return text === "" ? undefined : (JSON.parse(text) as unknown);
  } catch {
    return undefined;
  }
}

export async function call(
  baseUrl: string,
  method: string,
  path: string,
  headers: Record<string, string>,
  body?: string | Readable,
): Promise<Reply> {
  const response = await request(`${baseUrl}${path}`, { method: method as "GET", headers, body });
  const text = await response.body.text();
  return { status: response.statusCode, headers: flatten(response.headers), text, json: parseJson(text) };
}

function createRequest(options: CreateCallOptions): { headers: Record<string, string>; body: string } {
  const headers = requestHeaders(options);
  const contentType = options.contentType === undefined ? "application/json" : options.contentType;
  if (contentType !== null) headers["content-type"] = contentType;
  const key = options.idempotencyKey === undefined ? `test-${crypto.randomUUID()}` : options.idempotencyKey;
  if (key !== null) headers["idempotency-key"] = key;
  return {
    headers,
    body: options.rawBody ?? JSON.stringify(options.body ?? { message: "How do I reset my password?" }),
  };
}

export function createResponse(baseUrl: string, options: CreateCallOptions = {}): Promise<Reply> {
  const { headers, body } = createRequest(options);
  return call(baseUrl, "POST", `/v1/agents/${options.agent ?? "agent-a"}/responses`, headers, body);
}

export interface StreamReply extends Reply {
  /** The parsed events in order (empty when the answer is not an event stream). */
  events: EventSourceMessage[];
}

/** POSTs to the stream endpoint and reads the whole answer, parsing it as SSE when it is one. */
export async function streamResponse(baseUrl: string, options: CreateCallOptions = {}): Promise<StreamReply> {
  const { headers, body } = createRequest(options);
  const response = await request(`${baseUrl}/v1/agents/${options.agent ?? "agent-a"}/responses/stream`, {
    method: "POST",
    headers: { accept: "text/event-stream", ...headers },
    body,
  });
  const events: EventSourceMessage[] = [];
  const parser = createParser({ onEvent: (event) => events.push(event) });
  const decoder = new TextDecoder();
  let text = "";
  for await (const chunk of response.body) {
    const piece = decoder.decode(chunk as Buffer, { stream: true });
    text += piece;
    parser.feed(piece);
  }
  const isStream = String(response.headers["content-type"] ?? "").startsWith("text/event-stream");
  return {
    status: response.statusCode,
    headers: flatten(response.headers),
    text,
    json: isStream ? undefined : parseJson(text),
    events,
  };
}

export function listMessages(
  baseUrl: string,
  conversationId: string,
  options: CallOptions & { query?: string } = {},
): Promise<Reply> {
  const query = options.query === undefined ? "" : `?${options.query}`;
  return call(
    baseUrl,
    "GET",
    `/v1/agents/${options.agent ?? "agent-a"}/conversations/${conversationId}/messages${query}`,
    requestHeaders(options),
  );
}

export function deleteConversation(baseUrl: string, conversationId: string, options: CallOptions = {}): Promise<Reply> {
  return call(
    baseUrl,
    "DELETE",
    `/v1/agents/${options.agent ?? "agent-a"}/conversations/${conversationId}`,
    requestHeaders(options),
  );
}

/** A stream read event by event, for tests that act in the middle of it. */
export interface OpenStream {
  status: number;
  headers: Record<string, string>;
  /** The next event, or undefined once the body has ended. */
  next(): Promise<EventSourceMessage | undefined>;
  /** Hangs up, as a client that stops reading would. */
  abort(): void;
}

export async function openStream(baseUrl: string, options: CreateCallOptions = {}): Promise<OpenStream> {
  const { headers, body } = createRequest(options);
  const controller = new AbortController();
  const response = await request(`${baseUrl}/v1/agents/${options.agent ?? "agent-a"}/responses/stream`, {
    method: "POST",
    headers: { accept: "text/event-stream", ...headers },
    body,
    signal: controller.signal,
  });
  const queue: EventSourceMessage[] = [];
  const parser = createParser({ onEvent: (event) => queue.push(event) });
  const decoder = new TextDecoder();
  const chunks = response.body[Symbol.asyncIterator]();
  return {
    status: response.statusCode,
    headers: flatten(response.headers),
    async next() {
      while (queue.length === 0) {
        const { done, value } = await chunks.next();
        if (done) return undefined;
        parser.feed(decoder.decode(value as Buffer, { stream: true }));
      }
      return queue.shift();
    },
    abort() {
      controller.abort();
      response.body.destroy();
    },
  };
}
