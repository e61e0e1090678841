/**
 * What the suite's HTTP client takes and gives: identities, requests, results and their
 * redacted transcripts. Checks see only these (and suite/checks/runtime/types.ts): they never
 * read process.env, build URLs, or touch undici directly.
 */

/** Who is calling: an API key and the agent path segment. */
export interface Identity {
  /** null sends no Authorization header at all. */
  apiKey: string | null;
  agentId: string;
}

/** A redacted, size-capped record of one HTTP exchange, for failure messages and reports. */
export interface Transcript {
  request: {
    method: string;
    url: string;
    /** Lower-cased names; Authorization is always redacted ("Bearer sk-f…(redacted)"). */
    headers: Record<string, string>;
    body?: string;
  };
  response?: {
    status: number;
    headers: Record<string, string>;
    /** At most a few KiB of the body, for humans. */
    body?: string;
  };
  /** A harness-level failure (timeout, connection reset, size cap) instead of / after the response. */
  failure?: string;
  durationMs: number;
}

/** A plain (non-stream) HTTP answer. */
export interface HttpResult {
  status: number;
  /** Lower-cased header names; repeated headers joined with ", ". */
  headers: Record<string, string>;
  /** The whole body as text (capped by the configured response size limit). */
  text: string;
  /** The body parsed as JSON, or undefined when it is not JSON. */
  json: unknown;
  transcript: Transcript;
  /** 1 + the "try later" answers (429, 503, 409 with Retry-After) waited out before this one. */
  attempts?: number;
}

/** One server-sent event as the reader saw it. */
export interface TimedEvent {
  /** The `event:` field; undefined when the event had no event line. */
  event: string | undefined;
  data: string;
  /** `data` parsed as JSON, or undefined when it is not JSON. */
  json: unknown;
  id: string | undefined;
  /** Milliseconds since the request was sent, when the event was parsed. */
  at: number;
  /** Index of the body chunk (network read) that completed this event. */
  chunk: number;
}

export type StreamProblemKind =
  | "not-event-stream" // the response is not text/event-stream (see `http` for its body)
  | "no-terminal" // the body ended before response.completed or error
  | "after-terminal" // bytes or events came after the terminal event
  | "non-json-data" // an event's data is not JSON
  | "first-event-timeout"
  | "idle-timeout"
  | "total-timeout"
  | "byte-cap" // the body exceeded the configured byte cap
  | "connection-error"; // reset / closed mid-body / TLS or socket failure

export interface StreamProblem {
  kind: StreamProblemKind;
  detail: string;
}

/** What the stream reader made of one streaming request. It never throws for target behaviour. */
export interface StreamResult {
  status: number;
  headers: Record<string, string>;
  /** Events in arrival order. Events that came after the terminal one are included. */
  events: TimedEvent[];
  /** Name of the first terminal event (response.completed or error), if any. */
  terminal: "response.completed" | "error" | undefined;
  /** The response body ended (as opposed to timing out or being cut off by the reader). */
  ended: boolean;
  /** Number of body chunks (network reads) received. */
  chunks: number;
  problems: StreamProblem[];
  /** When the response is not an event stream: its body as a plain HTTP result. */
  http: HttpResult | undefined;
  transcript: Transcript;
  /** 1 + the "try later" answers waited out before this one. */
  attempts?: number;
}

export interface RequestOptions {
  /** Defaults to the target's primary identity. */
  as?: Identity;
  /** Raw Authorization header value, overriding `as.apiKey` (for malformed-header checks). */
  authorization?: string;
  /** Extra headers (lower-case names). */
  headers?: Record<string, string>;
  /**
   * Whether a 409 carrying Retry-After means "the key's first request is still running" and is
   * waited out (default), or is the verdict the check asked for (conflicts, concurrent bursts).
   */
  retryInUse?: boolean;
}

export interface CreateOptions extends RequestOptions {
  /** JSON body; serialised with JSON.stringify. */
  body?: unknown;
  /** Exact body text to send instead of `body` (for malformed JSON and whitespace checks). */
  rawBody?: string;
  /** The Idempotency-Key header: a string, or null to omit it. Defaults to a fresh run-scoped key. */
  idempotencyKey?: string | null;
  /** Defaults to application/json. null omits the header. */
  contentType?: string | null;
  /**
   * A replay of a key the target already answered: by the spec it consumes nothing, so it is
   * not held against the create budget.
   */
  replay?: boolean;
  /** Streams only: called with each event as it is parsed (to act while the stream is open). */
  onEvent?: (event: TimedEvent) => void;
  /** Streams only: aborting it drops the stream as a client does on cancellation (client rule 2). */
  drop?: AbortSignal;
}

export interface ListOptions extends RequestOptions {
  /** Query parameters, sent as given (strings allow "abc", "1.5", "-1"). */
  query?: Record<string, string | number>;
}

/** One function per operation of the spec. Every body is consumed or cancelled. */
export interface ServiceClient {
  create(options: CreateOptions): Promise<HttpResult>;
  stream(options: CreateOptions): Promise<StreamResult>;
  list(conversationId: string, options?: ListOptions): Promise<HttpResult>;
  delete(conversationId: string, options?: RequestOptions): Promise<HttpResult>;
}

/** One "try later" answer (429, 503, 409 with Retry-After) the client waited out. */
export interface RetryNote {
  status: number;
  waitMs: number;
}
