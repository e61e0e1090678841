/**
 * A session's request log (stage 3, `GET /__fake/requests`): the last `requestLogSize` requests,
 * kept raw and formatted only when read, the Authorization header redacted.
 */
import type { IncomingHttpHeaders } from "node:http";
import { bearerTokenOf } from "../access/bearer.ts";
import { formatTimestamp } from "../conversations/timestamps.ts";
import { LOGGED_BODY_CHARS } from "../http/read-body.ts";
import { redactKey } from "../access/keys.ts";
import type { RequestLogEntry } from "./schemas.ts";

/** What the log reads off a request when its response closes (FakeRequest's fields). */
export interface ClosedRequest {
  readonly faultRule?: string | undefined;
  readonly answerRule?: string | undefined;
  readonly bodyText?: string | undefined;
}

/**
 * One request as the log keeps it: raw fields, formatted only when the log is read, so a
 * request pays for no timestamp text, redaction, header copy or parse it may never show.
 */
export class LoggedRequest {
  /** Set when the response closes. */
  status = 0;
  durationMs = 0;
  /** The client rules the request broke (as the client-rule observer found them), read when it closes. */
  warnings: readonly string[] | undefined = undefined;
  faultRule: string | undefined = undefined;
  answerRule: string | undefined = undefined;
  /** At most LOGGED_BODY_CHARS of the body as text. */
  bodyText: string | undefined = undefined;

  constructor(
    /** Arrival, epoch milliseconds of the fake's clock. */
    readonly at: number,
    /** Arrival on the monotonic clock (performance.now()), for the duration. */
    private readonly startedAt: number,
    readonly method: string,
    readonly path: string,
    /** The request's headers as Node parsed them; Authorization is only ever shown redacted. */
    readonly headers: IncomingHttpHeaders,
    readonly session: string = "default",
  ) {}

  /** The response closed at `endedAt` (performance.now()) with `status`; `warnings` are the client rules the request broke. */
  closed(status: number, endedAt: number, request: ClosedRequest, warnings: readonly string[] | undefined): void {
    this.status = status;
    this.durationMs = endedAt - this.startedAt;
    this.warnings = warnings;
    this.faultRule = request.faultRule;
    this.answerRule = request.answerRule;
    this.bodyText = request.bodyText;
  }
}

function redactedAuthorization(value: string): string {
  const token = bearerTokenOf(value);
  return token === undefined ? "(redacted)" : `Bearer ${redactKey(token)}`;
}

function shownHeaders(headers: IncomingHttpHeaders): Record<string, string> {
  const shown: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined) continue;
    const text = Array.isArray(value) ? value.join(", ") : value;
    shown[name] = name === "authorization" ? redactedAuthorization(text) : text;
  }
  return shown;
}

/** The body as JSON when it is whole and parses, else as the text kept; null when there was none. */
function shownBody(text: string | undefined): unknown {
  if (text === undefined || text === "") return null;
  if (text.length < LOGGED_BODY_CHARS) {
    try {
      return JSON.parse(text) as unknown;
    } catch {
      return text;
    }
  }
  return text;
}

function formatted(request: LoggedRequest): RequestLogEntry {
  const token = bearerTokenOf(request.headers.authorization);
  return {
    at: formatTimestamp(request.at),
    session: request.session,
    method: request.method,
    path: request.path,
    status: request.status,
    duration_ms: Math.round(request.durationMs * 1000) / 1000,
    api_key: token === undefined ? null : redactKey(token),
    headers: shownHeaders(request.headers),
    body: shownBody(request.bodyText),
    warnings: request.warnings === undefined ? [] : [...request.warnings],
    fault_rule: request.faultRule ?? null,
    answer_rule: request.answerRule ?? null,
  };
}

/** The last `capacity` requests, oldest first; older ones are overwritten. */
export class RequestLog {
  private readonly entries: LoggedRequest[] = [];
  private next = 0;

  constructor(readonly capacity: number) {}

  add(entry: LoggedRequest): void {
    if (this.capacity === 0) return;
    if (this.entries.length < this.capacity) {
      this.entries.push(entry);
    } else {
      this.entries[this.next] = entry;
    }
    this.next = (this.next + 1) % this.capacity;
  }

  /** The most recent `limit` entries, oldest first. */
  recent(limit: number = this.capacity): RequestLogEntry[] {
    const ordered =
      this.entries.length < this.capacity
        ? this.entries
        : [...this.entries.slice(this.next), ...this.entries.slice(0, this.next)];
    return ordered.slice(Math.max(0, ordered.length - limit)).map(formatted);
  }

  clear(): void {
    this.entries.length = 0;
    this.next = 0;
  }
}
