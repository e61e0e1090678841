/**
 * The ServiceClient of types.ts on undici: one pool per run (keep-alive, as many connections
 * as the concurrency cap), per-request deadlines, a response size cap, every body consumed or
 * destroyed, and a redacted transcript for every exchange.
 *
 * "Try later" answers (429, 503, a 409 with Retry-After) are waited out and retried with the
 * same key and body (retry.ts); every request waits for its turn under --max-rps.
 *
 * Failures: the target cannot be reached (refused, DNS, TLS, bad URL) → HarnessError;
 * the target misbehaved (reset mid-body, size cap, garbage) → TargetError; the target was
 * too slow or kept saying "try later" → InconclusiveError.
 */

import { Agent, EnvHttpProxyAgent, type Dispatcher } from "undici";
import type { Semaphore } from "./concurrency.ts";
import { endpoints } from "./endpoints.ts";
import { classifyNetworkError, describeNetworkError, HarnessError, InconclusiveError, TargetError } from "./errors.ts";
import type { Redactor } from "./redact.ts";
import { flattenHeaders, readCappedText, tryParseJson } from "./response-body.ts";
import { isTryLater, sleep, waitBeforeRetry, type Pacer } from "./retry.ts";
import { readStream, type StreamLimits } from "./stream-reader.ts";
import { buildTranscript } from "./transcript.ts";
import type {
  CreateOptions,
  HttpResult,
  Identity,
  ListOptions,
  RequestOptions,
  RetryNote,
  ServiceClient,
  StreamResult,
  Transcript,
} from "./types.ts";

export interface ClientLimits extends StreamLimits {
  requestTimeoutMs: number;
}

/**
 * One create on its way: held before it is sent, settled when the answer is known. A create
 * the target refused (4xx, 429, 503) consumed nothing and goes back to its reservation.
 */
export interface CreateHold {
  settle(consumed: boolean): void;
}

/** How the client reports to whoever runs it (the current check, in the suite). */
export interface ClientObserver {
  /** Called once before every create (plain or stream), retries included; throws when the budget refuses it. */
  beforeCreate(): CreateHold;
  /** Every exchange, successful or not, each retried attempt included. */
  onExchange(transcript: Transcript, stream?: StreamResult): void;
  /** Every "try later" answer that is about to be retried. */
  onRetry?(note: RetryNote): void;
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
  /** Retries of "try later" answers per request (--max-retries); none when absent. */
  maxRetries?: number;
  /** Paces every attempt (--max-rps). */
  pacer?: Pacer;
  /** Sent on every request (--header); a check's own headers and the identity's key win. */
  extraHeaders?: Record<string, string>;
  observer?: ClientObserver;
}

const USER_AGENT = "agent-conformance/0.1";

/**
 * The run's dispatcher: keep-alive connections matching the concurrency cap, through the proxy
 * of HTTPS_PROXY / HTTP_PROXY unless NO_PROXY exempts the target (a private CA comes from
 * NODE_EXTRA_CA_CERTS, which Node reads at start-up). `baseUrl` stays in the signature the
 * package's `./client` export published, though one agent now serves whatever origin it names.
 */
export function createPool(baseUrl: string, concurrency: number, requestTimeoutMs: number): Dispatcher {
  return dispatcherFromEnvironment({
    connections: concurrency,
    pipelining: 1,
    keepAliveTimeout: 4_000,
    headersTimeout: requestTimeoutMs,
    bodyTimeout: requestTimeoutMs,
    connect: { timeout: requestTimeoutMs },
  });
}

/** An agent with `options`, through the proxy of HTTPS_PROXY / HTTP_PROXY unless NO_PROXY exempts the target. */
export function dispatcherFromEnvironment(options: Agent.Options): Dispatcher {
  const proxied = ["HTTPS_PROXY", "https_proxy", "HTTP_PROXY", "http_proxy"].some(
    (name) => (process.env[name] ?? "") !== "",
  );
  return proxied ? new EnvHttpProxyAgent(options) : new Agent(options);
}

/** Whether an answer to a create means the target did the work (and may charge for it). */
function consumed(status: number | undefined): boolean {
  if (status === undefined) return true;
  return !(status >= 400 && status < 500) && status !== 503;
}

interface PlainRequest {
  method: "POST" | "GET" | "DELETE";
  path: string;
  headers: Record<string, string>;
  body?: string | undefined;
}

export function createClient(options: ClientOptions): ServiceClient {
  const api = endpoints(options.baseUrl);
  const agentOf = (request: RequestOptions) => (request.as ?? options.primary).agentId;
  const send = (request: PlainRequest, retryInUse = true): Promise<HttpResult> =>
    withRetries(options, `${request.method} ${request.path}`, retryInUse, () => sendOnce(options, api.origin, request));

  return {
    create: (request) => {
      // One key and body for every attempt: a retry is the same logical create.
      const plain: PlainRequest = {
        method: "POST",
        path: api.responses(agentOf(request)),
        headers: createHeaders(options, request, "application/json"),
        body: createBody(request),
      };
      return asCreate(options.observer, request, () => send(plain, request.retryInUse ?? true));
    },
    stream: (request) => {
      const fixed: CreateOptions = {
        ...request,
        idempotencyKey: createHeaders(options, request, "")["idempotency-key"] ?? null,
      };
      const path = api.stream(agentOf(request));
      return asCreate(options.observer, request, () =>
        withRetries(options, `POST ${path}`, request.retryInUse ?? true, () =>
          streamOnce(options, api.origin, path, fixed),
        ),
      );
    },
    list: (conversationId, request: ListOptions = {}) =>
      send(
        {
          method: "GET",
          path: api.messages(agentOf(request), conversationId, request.query),
          headers: baseHeaders(options, request, "application/json"),
        },
        request.retryInUse ?? true,
      ),
    delete: (conversationId, request: RequestOptions = {}) =>
      send(
        {
          method: "DELETE",
          path: api.conversation(agentOf(request), conversationId),
          headers: baseHeaders(options, request, "application/json"),
        },
        request.retryInUse ?? true,
      ),
  };
}

/** Headers of every request: --header first, then the identity's key, then the check's own headers. */
function baseHeaders(options: ClientOptions, request: RequestOptions, accept: string): Record<string, string> {
  const headers: Record<string, string> = { accept, "user-agent": USER_AGENT, ...options.extraHeaders };
  const apiKey = (request.as ?? options.primary).apiKey;
  if (request.authorization !== undefined) headers.authorization = request.authorization;
  else if (apiKey !== null) headers.authorization = `Bearer ${apiKey}`;
  for (const [name, value] of Object.entries(request.headers ?? {})) headers[name.toLowerCase()] = value;
  return headers;
}

/** A create's headers: a JSON body and an Idempotency-Key unless the check said otherwise. */
function createHeaders(options: ClientOptions, request: CreateOptions, accept: string): Record<string, string> {
  const headers = baseHeaders(options, request, accept);
  const contentType = request.contentType === undefined ? "application/json" : request.contentType;
  const key = request.idempotencyKey === undefined ? options.idempotencyKey() : request.idempotencyKey;
  // Explicit headers from the check win over the defaults.
  if (contentType !== null && request.headers?.["content-type"] === undefined) headers["content-type"] = contentType;
  if (key !== null && request.headers?.["idempotency-key"] === undefined) headers["idempotency-key"] = key;
  return headers;
}

function createBody(request: CreateOptions): string | undefined {
  return request.rawBody ?? (request.body === undefined ? undefined : JSON.stringify(request.body));
}

/** A connection slot under the concurrency cap; a check out of time gets an inconclusive, not a hang. */
async function acquireSlot(semaphore: Semaphore, signal: AbortSignal | undefined): Promise<() => void> {
  try {
    return await semaphore.acquire(signal);
  } catch {
    throw new InconclusiveError(
      "timeout",
      "request not sent: the check's time ran out while it waited for a connection slot",
      "--check-timeout",
    );
  }
}

/** Waits out "try later" answers of `attempt`, then returns the last answer. */
async function withRetries<
  R extends { status: number; headers: Record<string, string>; transcript: Transcript; attempts?: number },
>(options: ClientOptions, what: string, retryInUse: boolean, attempt: () => Promise<R>): Promise<R> {
  const { observer } = options;
  for (let retry = 0; ; retry++) {
    await options.pacer?.turn(observer?.signal());
    const result = await attempt();
    if (!isTryLater(result.status, result.headers, retryInUse)) {
      result.attempts = retry + 1;
      return result;
    }
    if (retry >= (options.maxRetries ?? 0)) {
      throw new InconclusiveError(
        "retries",
        `${what}: the target still answered ${result.status} after ${retry} ${retry === 1 ? "retry" : "retries"}`,
        "--max-retries",
        result.transcript,
      );
    }
    const waitMs = waitBeforeRetry(retry, result.headers["retry-after"]);
    observer?.onRetry?.({ status: result.status, waitMs });
    try {
      await sleep(waitMs, observer?.signal());
    } catch {
      throw new InconclusiveError(
        "timeout",
        `${what}: the check's time ran out while waiting ${waitMs} ms to retry a ${result.status}`,
        "--check-timeout",
        result.transcript,
      );
    }
  }
}

/** A create: held against the budget once, retries included, settled by its final answer. */
async function asCreate<R extends { status: number }>(
  observer: ClientObserver | undefined,
  request: CreateOptions,
  run: () => Promise<R>,
): Promise<R> {
  const hold = request.replay === true ? undefined : observer?.beforeCreate();
  let status: number | undefined;
  try {
    const result = await run();
    status = result.status;
    return result;
  } catch (error) {
    // A request the target kept refusing consumed nothing; anything else may have.
    if (error instanceof InconclusiveError && error.kind === "retries") status = error.transcript?.response?.status;
    throw error;
  } finally {
    hold?.settle(consumed(status));
  }
}

/** One attempt of a plain request, within --request-timeout, its body read up to the cap. */
async function sendOnce(options: ClientOptions, origin: string, request: PlainRequest): Promise<HttpResult> {
  const { limits, dispatcher, redactor, observer } = options;
  const signal = observer?.signal();
  const release = await acquireSlot(options.semaphore, signal);
  const started = performance.now();
  const deadline = new AbortController();
  let deadlineHit = false;
  const timer = setTimeout(() => {
    deadlineHit = true;
    deadline.abort();
  }, limits.requestTimeoutMs);
  let status: number | undefined;
  let headers: Record<string, string> = {};
  let text = "";

  const record = (failure?: string) =>
    buildTranscript(
      {
        method: request.method,
        url: `${origin}${request.path}`,
        requestHeaders: request.headers,
        requestBody: request.body,
        status,
        responseHeaders: headers,
        responseBody: text,
        failure,
        durationMs: performance.now() - started,
      },
      redactor,
    );

  try {
    const response = await dispatcher.request({
      origin,
      path: request.path,
      method: request.method,
      headers: request.headers,
      body: request.body,
      signal: signal ? AbortSignal.any([deadline.signal, signal]) : deadline.signal,
      headersTimeout: limits.requestTimeoutMs,
      bodyTimeout: limits.requestTimeoutMs,
    });
    status = response.statusCode;
    headers = flattenHeaders(response.headers);
    text = await readCappedText(response.body, limits.maxResponseBytes, headers["content-length"]);
  } catch (error) {
    const failed = toFailure(error, { deadlineHit, cancelled: signal?.aborted === true, request, origin, limits });
    const message = redactor.scrub(failed.message);
    const transcript = record(message);
    observer?.onExchange(transcript);
    throw withTranscript(failed, message, transcript, redactor);
  } finally {
    clearTimeout(timer);
    release();
  }

  const transcript = record();
  observer?.onExchange(transcript);
  return { status, headers, text, json: tryParseJson(text), transcript };
}

/** The failure of a plain request as it is thrown: redacted, with its exchange where it judges the target. */
function withTranscript(
  failed: HarnessError | TargetError | InconclusiveError,
  message: string,
  transcript: Transcript,
  redactor: Redactor,
): Error {
  if (failed instanceof TargetError) return new TargetError(failed.kind, message, transcript);
  if (failed instanceof InconclusiveError)
    return new InconclusiveError(failed.kind, redactor.scrub(failed.detail), failed.flag, transcript);
  return new HarnessError(failed.kind, message);
}

/** One attempt of a stream, read by the stream reader under the concurrency cap. */
async function streamOnce(
  options: ClientOptions,
  origin: string,
  path: string,
  request: CreateOptions,
): Promise<StreamResult> {
  const { observer } = options;
  const deadline = observer?.signal();
  const release = await acquireSlot(options.semaphore, deadline);
  const signal =
    request.drop === undefined
      ? deadline
      : deadline === undefined
        ? request.drop
        : AbortSignal.any([deadline, request.drop]);
  try {
    const result = await readStream(
      options.dispatcher,
      {
        origin,
        path,
        method: "POST",
        headers: createHeaders(options, request, "text/event-stream"),
        body: createBody(request),
      },
      options.limits,
      options.redactor,
      { signal, onEvent: request.onEvent },
    );
    observer?.onExchange(result.transcript, result);
    return result;
  } finally {
    release();
  }
}

/** Turns whatever a plain request threw into a HarnessError or a TargetError, by fields only. */
function toFailure(
  error: unknown,
  context: { deadlineHit: boolean; cancelled: boolean; request: PlainRequest; origin: string; limits: ClientLimits },
): HarnessError | TargetError | InconclusiveError {
  const what = `${context.request.method} ${context.request.path}`;
  if (error instanceof TargetError) return new TargetError(error.kind, `${what}: ${error.message}`);
  if (error instanceof HarnessError || error instanceof InconclusiveError) return error;
  if (context.deadlineHit) {
    return new InconclusiveError(
      "timeout",
      `${what}: no complete response within ${context.limits.requestTimeoutMs} ms`,
      "--request-timeout",
    );
  }
  if (context.cancelled)
    return new InconclusiveError("timeout", `${what}: cancelled because the check's time ran out`, "--check-timeout");
  const failure = classifyNetworkError(error);
  if (failure.side === "harness") {
    const message =
      failure.kind === "unreachable" || failure.kind === "tls"
        ? `cannot reach ${context.origin}: ${describeNetworkError(error)}`
        : `${what}: the harness could not send the request: ${describeNetworkError(error)}`;
    return new HarnessError(failure.kind, message);
  }
  if (failure.kind === "timeout") {
    return new InconclusiveError(
      "timeout",
      `${what}: no complete response within ${context.limits.requestTimeoutMs} ms (${failure.code})`,
      "--request-timeout",
    );
  }
  return new TargetError(failure.kind, `${what}: ${failure.kind}: ${describeNetworkError(error)}`);
}
