/**
 * A small client of the Conversational Agent Service that keeps every client rule of the
 * spec (requirements/catalog.ts, family `client`):
 *  - `Authorization: Bearer <key>` on every request (CLIENT-1);
 *  - a fresh Idempotency-Key per logical operation, reused by every retry of it (CLIENT-2, CLIENT-3);
 *  - a started stream that breaks off is retried only under its own key (CLIENT-4), and the
 *    text already handed on is not handed on again;
 *  - `Accept: text/event-stream`, and the answer's Content-Type checked (CLIENT-5, CLIENT-8);
 *  - `Content-Type: application/json` on every create (CLIENT-6);
 *  - retries wait for Retry-After, otherwise back off, and are capped (CLIENT-7);
 *  - the stream is read event by event and released at its end (CLIENT-9, CLIENT-10).
 * An `error` event is final: replaying its key gives the same error, and a new key could
 * duplicate the message, so the caller decides whether to ask again.
 */
import { randomUUID } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import { createParser, type EventSourceMessage } from "eventsource-parser";
import { request, type Dispatcher } from "undici";
import {
  errorCode,
  SpecMessagePage,
  SpecResponseResult,
  SpecStreamEvent,
  type ResponseRequest,
  type SpecCompletedResponse,
} from "../schemas/index.ts";

export interface AgentClientOptions {
  baseUrl: string;
  apiKey: string;
  agentId: string;
  /** Where requests go; default undici's global keep-alive pool. */
  dispatcher?: Dispatcher;
  /** Attempts per operation, the first included. Default 4. */
  maxAttempts?: number;
  /** A Retry-After longer than this fails the operation instead of waiting. Default 30 s. */
  maxRetryAfterMs?: number;
  /** First pause when an answer gives no Retry-After; doubles per retry. Default 250 ms. */
  backoffMs?: number;
  /** undici's headers and body (idle) timeouts. Default 30 s. */
  timeoutMs?: number;
}

export interface OperationOptions {
  /** This logical operation's key; default a fresh UUID. Pass your own operation id to make a repeated submit the same operation. */
  idempotencyKey?: string;
  signal?: AbortSignal;
}

export interface StreamOptions extends OperationOptions {
  /** Each new piece of the answer as it arrives, exactly once even when the stream is retried. */
  onText?: (text: string) => void;
}

/** The service answered an error status. */
export class ServiceError extends Error {
  override name = "ServiceError";
  constructor(
    readonly status: number,
    readonly code: string | undefined,
    message: string,
  ) {
    super(message);
  }
}

/** The stream ended with an `error` event. */
export class StreamFailedError extends Error {
  override name = "StreamFailedError";
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

/** The answer breaks the spec (not an event stream, a malformed event). */
export class ProtocolError extends Error {
  override name = "ProtocolError";
}

/** Thrown by one attempt when another attempt under the same key may succeed. */
class Retryable extends Error {
  constructor(
    readonly failure: unknown,
    readonly waitMs: number | undefined,
  ) {
    super("retryable");
  }
}

const RETRYABLE_STATUS = new Set([429, 500, 502, 503, 504]);

function retryAfterMs(header: string | string[] | undefined): number | undefined {
  const value = Array.isArray(header) ? header[0] : header;
  if (value === undefined) return undefined;
  if (/^\d+$/.test(value.trim())) return Number(value) * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - Date.now());
}

/** Turns an error answer into the error to throw, retryable when the spec's world allows it. */
async function failureOf(response: Dispatcher.ResponseData): Promise<never> {
  const text = await response.body.text();
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  const code = errorCode(body);
  const error = new ServiceError(
    response.statusCode,
    code,
    `the service answered ${response.statusCode}${code ? ` ${code}` : ""}`,
  );
  // A stored failure replays as 502 agent_failed: the same key can only give it again.
  const retryable =
    (RETRYABLE_STATUS.has(response.statusCode) && code !== "agent_failed") ||
    (response.statusCode === 409 && code === "idempotency_key_in_use");
  if (retryable) throw new Retryable(error, retryAfterMs(response.headers["retry-after"]));
  throw error;
}

export function createAgentClient(options: AgentClientOptions) {
  const settings = { maxAttempts: 4, maxRetryAfterMs: 30_000, backoffMs: 250, timeoutMs: 30_000, ...options };
  const base = `${options.baseUrl.replace(/\/+$/, "")}/v1/agents/${encodeURIComponent(options.agentId)}`;
  const auth = { authorization: `Bearer ${options.apiKey}` };

  /** One HTTP exchange; a failure to get any answer (refused, reset, timed out) may be retried. */
  async function send(
    url: string,
    init: { method: Dispatcher.HttpMethod; headers: Record<string, string>; body?: string },
    signal?: AbortSignal,
  ) {
    try {
      return await request(url, {
        ...init,
        signal,
        dispatcher: settings.dispatcher,
        headersTimeout: settings.timeoutMs,
        bodyTimeout: settings.timeoutMs,
      });
    } catch (error) {
      if (signal?.aborted) throw error;
      throw new Retryable(error, undefined);
    }
  }

  /** Runs attempts of one operation until one succeeds, a failure is final, or attempts run out. */
  async function withRetries<T>(attempt: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    for (let n = 1; ; n++) {
      try {
        return await attempt();
      } catch (error) {
        if (!(error instanceof Retryable)) throw error;
        const wait = error.waitMs ?? settings.backoffMs * 2 ** (n - 1);
        if (n >= settings.maxAttempts || wait > settings.maxRetryAfterMs) throw error.failure;
        await sleep(wait, undefined, { signal });
      }
    }
  }

  const createHeaders = (key: string) => ({ ...auth, "content-type": "application/json", "idempotency-key": key });

  return {
    /** POST /responses: the whole answer at once. */
    createResponse(body: ResponseRequest, op: OperationOptions = {}) {
      const key = op.idempotencyKey ?? randomUUID();
      const payload = JSON.stringify(body);
      return withRetries(async () => {
        const response = await send(
          `${base}/responses`,
          { method: "POST", headers: createHeaders(key), body: payload },
          op.signal,
        );
        if (response.statusCode < 200 || response.statusCode >= 300) return failureOf(response);
        return SpecResponseResult.parse(await response.body.json());
      }, op.signal);
    },

    /** POST /responses/stream: hands the answer on as it arrives and resolves to the completed response. */
    streamResponse(body: ResponseRequest, op: StreamOptions = {}): Promise<SpecCompletedResponse> {
      const key = op.idempotencyKey ?? randomUUID();
      const payload = JSON.stringify(body);
      let handedOn = "";
      return withRetries(async () => {
        const headers = { ...createHeaders(key), accept: "text/event-stream" };
        const response = await send(`${base}/responses/stream`, { method: "POST", headers, body: payload }, op.signal);
        if (response.statusCode < 200 || response.statusCode >= 300) return failureOf(response);
        const contentType = String(response.headers["content-type"] ?? "");
        if (!/^text\/event-stream\b/i.test(contentType)) {
          response.body.destroy();
          throw new ProtocolError(
            `the stream answered Content-Type ${JSON.stringify(contentType)}, not text/event-stream`,
          );
        }
        // A retry under the same key replays the answer from its start: hand on only what is new.
        let received = "";
        const onDelta = (delta: string) => {
          received += delta;
          if (received.length > handedOn.length) {
            op.onText?.(received.slice(handedOn.length));
            handedOn = received;
          }
        };
        try {
          return await readStream(response.body, onDelta, op.signal);
        } finally {
          response.body.destroy();
        }
      }, op.signal);
    },

    /** GET /conversations/{id}/messages (safe to retry). */
    listMessages(
      conversationId: string,
      query: { page?: number; pageSize?: number } = {},
      op: Pick<OperationOptions, "signal"> = {},
    ) {
      const params = new URLSearchParams();
      if (query.page !== undefined) params.set("page", String(query.page));
      if (query.pageSize !== undefined) params.set("page_size", String(query.pageSize));
      const url = `${base}/conversations/${encodeURIComponent(conversationId)}/messages${params.size > 0 ? `?${params}` : ""}`;
      return withRetries(async () => {
        const response = await send(url, { method: "GET", headers: auth }, op.signal);
        if (response.statusCode < 200 || response.statusCode >= 300) return failureOf(response);
        return SpecMessagePage.parse(await response.body.json());
      }, op.signal);
    },

    /** DELETE /conversations/{id} (safe to retry: a repeat answers 404 conversation_not_found). */
    deleteConversation(conversationId: string, op: Pick<OperationOptions, "signal"> = {}): Promise<void> {
      return withRetries(async () => {
        const response = await send(
          `${base}/conversations/${encodeURIComponent(conversationId)}`,
          { method: "DELETE", headers: auth },
          op.signal,
        );
        if (response.statusCode < 200 || response.statusCode >= 300) return failureOf(response);
        await response.body.dump();
      }, op.signal);
    },
  };
}

export type AgentClient = ReturnType<typeof createAgentClient>;

function parseEvent(message: EventSourceMessage) {
  let data: unknown;
  try {
    data = JSON.parse(message.data);
  } catch {
    throw new ProtocolError(`event ${JSON.stringify(message.event)} does not carry JSON data`);
  }
  const parsed = SpecStreamEvent.safeParse(data);
  if (!parsed.success || parsed.data.type !== message.event) {
    throw new ProtocolError(`malformed ${JSON.stringify(message.event)} event`);
  }
  return parsed.data;
}

/**
 * Reads events as they arrive until the terminal one. A body that breaks off, or ends
 * without a terminal event, is a cut stream: retryable under the same key.
 */
async function readStream(
  body: AsyncIterable<Buffer>,
  onDelta: (delta: string) => void,
  signal?: AbortSignal,
): Promise<SpecCompletedResponse> {
  const pending: EventSourceMessage[] = [];
  const parser = createParser({ onEvent: (message) => pending.push(message) });
  const decoder = new TextDecoder();
  try {
    for await (const chunk of body) {
      parser.feed(decoder.decode(chunk, { stream: true }));
      for (const message of pending.splice(0)) {
        const event = parseEvent(message);
        if (event.type === "response.output_text.delta") onDelta(event.delta);
        if (event.type === "response.completed") return event.response;
        if (event.type === "error")
          throw new StreamFailedError(event.code, `the stream failed: ${event.code}: ${event.message}`);
      }
    }
  } catch (error) {
    if (error instanceof StreamFailedError || error instanceof ProtocolError || signal?.aborted) throw error;
    throw new Retryable(error, undefined);
  }
  throw new Retryable(new ProtocolError("the stream ended before its terminal event"), undefined);
}
