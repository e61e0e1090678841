/**
 * What the client-rule observer knows of one request, in plain values rather than Node objects (so
 * recorded traffic can be fed to it too): what arrived, then its payload, answer and end as they
 * happen.
 */

/** The two create operations; every client rule about bodies and keys concerns only these. */
export type CreateOperation = "create" | "stream";

/** How a stream that started ended, as far as the client could have seen it. */
export type StreamEnd = "completed" | "error" | "cut";

/** What the observer keeps of a create body that passed validation. */
export interface ObservedPayload {
  /** Digest of the canonical JSON, as the idempotency store compares payloads. */
  readonly fingerprint: string;
  readonly message: string;
  /** null for "start a new conversation" (absent or null in the body). */
  readonly conversationId: string | null;
  readonly excerpt: string;
}

/**
 * One /v1 request as the observer sees it. The fields below the first block fill in as the
 * request runs; violations keep a reference, so what they show is always the latest.
 */
export interface ObservedRequest {
  readonly method: string;
  readonly path: string;
  /** Arrival, epoch milliseconds of the fake's clock. */
  readonly at: number;
  readonly operation: CreateOperation | undefined;
  /** The agent path segment of a create; undefined for other requests. */
  readonly agent: string | undefined;
  /** The Idempotency-Key header as sent (repeats joined with ", "), or undefined. */
  readonly idempotencyKey: string | undefined;
  readonly headers: {
    readonly authorization: string | undefined;
    readonly accept: string | undefined;
    readonly contentType: string | undefined;
  };
  payload?: ObservedPayload;
  status?: number;
  /** The Retry-After of the answer, in milliseconds. */
  retryAfterMs?: number;
  /** When the answer was finished or the connection closed. */
  finishedAt?: number;
  /** Streams that started only. */
  streamEnd?: StreamEnd;
}

/** A request as it arrives, in plain values: all the observer reads of it. */
export interface ArrivingRequest {
  readonly method: string;
  /** The path without the query string. */
  readonly path: string;
  /** By lower-cased name; a repeated header as its list of values. */
  readonly headers: Readonly<Record<string, string | readonly string[] | undefined>>;
}

// polka routes case-insensitively, so /V1/Agents/x/Responses reaches the create handler too.
const CREATE_PATH = /^\/v1\/agents\/([^/]+)\/responses(\/stream)?$/i;

function single(value: string | readonly string[] | undefined): string | undefined {
  return value === undefined || typeof value === "string" ? value : value.join(", ");
}

export function observeRequest(req: ArrivingRequest, at: number): ObservedRequest {
  const { method } = req;
  const match = method === "POST" ? CREATE_PATH.exec(req.path) : null;
  const operation: CreateOperation | undefined = match ? (match[2] ? "stream" : "create") : undefined;
  const agent = match?.[1];
  const idempotencyKey = operation ? single(req.headers["idempotency-key"]) : undefined;
  return {
    method,
    path: req.path,
    at,
    operation,
    agent,
    idempotencyKey,
    headers: {
      authorization: single(req.headers.authorization),
      accept: single(req.headers.accept),
      contentType: single(req.headers["content-type"]),
    },
  };
}

/** The answer settled the operation and its key: 2xx, or still running. */
export function heldItsKey(request: ObservedRequest): boolean {
  if (request.finishedAt === undefined) return true;
  return request.status !== undefined && request.status >= 200 && request.status < 300;
}

/** Whether `requests` holds any request other than `request` (without building a closure). */
export function holdsOtherThan(requests: readonly ObservedRequest[], request: ObservedRequest): boolean {
  for (const other of requests) if (other !== request) return true;
  return false;
}
