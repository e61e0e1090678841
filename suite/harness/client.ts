/**
 * The ServiceClient of types.ts on undici: one pool per run (keep-alive, as many connections
 * as the concurrency cap), per-request deadlines, a response size cap, every body consumed or
 * destroyed, and a redacted transcript for every exchange.
 *
 * Failures: the target cannot be reached (refused, DNS, TLS, bad URL) → HarnessError;
 * the target misbehaved (timeout, reset mid-body, size cap, garbage) → TargetError.
 */

import { Pool, type Dispatcher } from "undici";
import type { Semaphore } from "./budget.ts";
import { endpoints } from "./endpoints.ts";
import { classifyNetworkError, describeNetworkError, HarnessError, TargetError } from "./errors.ts";
import type { Redactor } from "./redact.ts";
import { flattenHeaders, readCappedText, tryParseJson } from "./response-body.ts";
import { readStream, type StreamLimits } from "./stream-reader.ts";
import { buildTranscript } from "./transcript.ts";
import type {
  CreateOptions,
  HttpResult,
  Identity,
  ListOptions,
  RequestOptions,
  ServiceClient,
  StreamResult,
  Transcript,
} from "./types.ts";

export interface ClientLimits extends StreamLimits {
  requestTimeoutMs: number;
}

/** How the client reports to whoever runs it (the current check, in the suite). */
export interface ClientObserver {
  /** Called before every create (plain or stream); throws when the budget refuses it. */
  beforeCreate(): void;
  /** Every exchange, successful or not. */
  onExchange(transcript: Transcript, stream?: StreamResult): void;
  /** Aborts the caller's requests (e.g. when its check times out). */
  signal(): AbortSignal | undefined;
}

export interface ClientOptions {
  baseUrl: string;
  primary: Identity;
  limits: ClientLimits;
  dispatcher: Dispatcher;
  semaphore: Semaphore;
  redactor: Redactor;
  /** A fresh Idempotency-Key for a create that did not choose one. */
  idempotencyKey: () => string;
  observer?: ClientObserver;
}

const USER_AGENT = "agent-conformance/0.1";

/** One keep-alive pool per run; connections match the concurrency cap. */
export function createPool(baseUrl: string, concurrency: number, requestTimeoutMs: number): Pool {
  return new Pool(new URL(baseUrl).origin, {
    connections: concurrency,
    pipelining: 1,
    keepAliveTimeout: 4_000,
    headersTimeout: requestTimeoutMs,
    bodyTimeout: requestTimeoutMs,
    connect: { timeout: requestTimeoutMs },
  });
}

interface PlainRequest {
  method: "POST" | "GET" | "DELETE";
  path: string;
  headers: Record<string, string>;
  body?: string | undefined;
}

export function createClient(options: ClientOptions): ServiceClient {
  const { limits, dispatcher, semaphore, redactor, observer } = options;
  const api = endpoints(options.baseUrl);

  const baseHeaders = (request: RequestOptions, accept: string): Record<string, string> => {
    const headers: Record<string, string> = { accept, "user-agent": USER_AGENT };
    const apiKey = (request.as ?? options.primary).apiKey;
    if (request.authorization !== undefined) headers.authorization = request.authorization;
    else if (apiKey !== null) headers.authorization = `Bearer ${apiKey}`;
    for (const [name, value] of Object.entries(request.headers ?? {})) headers[name.toLowerCase()] = value;
    return headers;
  };

  const createHeaders = (request: CreateOptions, accept: string) => {
    const headers = baseHeaders(request, accept);
    const contentType = request.contentType === undefined ? "application/json" : request.contentType;
    const key = request.idempotencyKey === undefined ? options.idempotencyKey() : request.idempotencyKey;
    // Explicit headers from the check win over the defaults.
    if (contentType !== null && request.headers?.["content-type"] === undefined) headers["content-type"] = contentType;
    if (key !== null && request.headers?.["idempotency-key"] === undefined) headers["idempotency-key"] = key;
    return headers;
  };

  const createBody = (request: CreateOptions): string | undefined =>
    request.rawBody ?? (request.body === undefined ? undefined : JSON.stringify(request.body));

  const acquire = async (signal: AbortSignal | undefined): Promise<() => void> => {
    try {
      return await semaphore.acquire(signal);
    } catch {
      throw new TargetError("timeout", "request not sent: the check's deadline passed while it waited for a connection slot");
    }
  };

  const send = async (request: PlainRequest): Promise<HttpResult> => {
    const signal = observer?.signal();
    const release = await acquire(signal);
    const started = performance.now();
    const deadline = new AbortController();
    let deadlineHit = false;
    const timer = setTimeout(() => {
      deadlineHit = true;
      deadline.abort();
    }, limits.requestTimeoutMs);
    const combined = signal ? AbortSignal.any([deadline.signal, signal]) : deadline.signal;
    const url = `${api.origin}${request.path}`;
    let status: number | undefined;
    let headers: Record<string, string> = {};
    let text = "";

    const record = (failure?: string) => buildTranscript({
      method: request.method,
      url,
      requestHeaders: request.headers,
      requestBody: request.body,
      status,
      responseHeaders: headers,
      responseBody: text,
      failure,
      durationMs: performance.now() - started,
    }, redactor);

    try {
      const response = await dispatcher.request({
        origin: api.origin,
        path: request.path,
        method: request.method,
        headers: request.headers,
        body: request.body,
        signal: combined,
        headersTimeout: limits.requestTimeoutMs,
        bodyTimeout: limits.requestTimeoutMs,
      });
      status = response.statusCode;
      headers = flattenHeaders(response.headers);
      text = await readCappedText(response.body, limits.maxResponseBytes, headers["content-length"]);
    } catch (error) {
      const failed = toFailure(error, { deadlineHit, cancelled: signal?.aborted === true, request, origin: api.origin, limits });
      const message = redactor.scrub(failed.message);
      const transcript = record(message);
      observer?.onExchange(transcript);
      if (failed instanceof TargetError) throw new TargetError(failed.kind, message, transcript);
      throw new HarnessError(failed.kind, message);
    } finally {
      clearTimeout(timer);
      release();
    }

    const transcript = record();
    observer?.onExchange(transcript);
    return { status, headers, text, json: tryParseJson(text), transcript };
  };

  const stream = async (request: CreateOptions): Promise<StreamResult> => {
    observer?.beforeCreate();
    const agentId = (request.as ?? options.primary).agentId;
    const signal = observer?.signal();
    const release = await acquire(signal);
    try {
      const result = await readStream(dispatcher, {
        origin: api.origin,
        path: api.stream(agentId),
        method: "POST",
        headers: createHeaders(request, "text/event-stream"),
        body: createBody(request),
      }, limits, redactor, { signal });
      observer?.onExchange(result.transcript, result);
      return result;
    } finally {
      release();
    }
  };

  return {
    create: async (request) => {
      observer?.beforeCreate();
      return send({
        method: "POST",
        path: api.responses((request.as ?? options.primary).agentId),
        headers: createHeaders(request, "application/json"),
        body: createBody(request),
      });
    },
    stream,
    list: (conversationId, request: ListOptions = {}) =>
      send({
        method: "GET",
        path: api.messages((request.as ?? options.primary).agentId, conversationId, request.query),
        headers: baseHeaders(request, "application/json"),
      }),
    delete: (conversationId, request: RequestOptions = {}) =>
      send({
        method: "DELETE",
        path: api.conversation((request.as ?? options.primary).agentId, conversationId),
        headers: baseHeaders(request, "application/json"),
      }),
  };
}

/** Turns whatever a plain request threw into a HarnessError or a TargetError, by fields only. */
function toFailure(
  error: unknown,
  context: { deadlineHit: boolean; cancelled: boolean; request: PlainRequest; origin: string; limits: ClientLimits },
): HarnessError | TargetError {
  const what = `${context.request.method} ${context.request.path}`;
  if (error instanceof TargetError) return new TargetError(error.kind, `${what}: ${error.message}`);
  if (error instanceof HarnessError) return error;
  if (context.deadlineHit) {
    return new TargetError("timeout", `${what}: no complete response within ${context.limits.requestTimeoutMs} ms`);
  }
  if (context.cancelled) return new TargetError("timeout", `${what}: cancelled because the check's deadline passed`);
  const failure = classifyNetworkError(error);
  if (failure.side === "harness") {
    const message = failure.kind === "unreachable" || failure.kind === "tls"
      ? `cannot reach ${context.origin}: ${describeNetworkError(error)}`
      : `${what}: the harness could not send the request: ${describeNetworkError(error)}`;
    return new HarnessError(failure.kind, message);
  }
  const reason = failure.kind === "timeout"
    ? `no complete response within ${context.limits.requestTimeoutMs} ms (${failure.code})`
    : `${failure.kind}: ${describeNetworkError(error)}`;
  return new TargetError(failure.kind, `${what}: ${reason}`);
}
