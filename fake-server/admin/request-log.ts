import { bearerTokenOf } from "../auth.ts";
import { formatTimestamp } from "../conversations/timestamps.ts";
import { redactKey } from "../keys.ts";
import type { RequestLogEntry } from "./schemas.ts";

/**
 * One request as the log keeps it: raw fields, formatted only when the log is read, so a
 * request pays for no timestamp text, redaction or rounding it may never show.
 */
export class LoggedRequest {
  /** Set when the response closes. */
  status = 0;
  durationMs = 0;
  /** The client rules the request broke (the request's `warnings`), read when it closes. */
  warnings: readonly string[] | undefined = undefined;

  constructor(
    /** Arrival, epoch milliseconds of the fake's clock. */
    readonly at: number,
    /** Arrival on the monotonic clock (performance.now()), for the duration. */
    private readonly startedAt: number,
    readonly method: string,
    readonly path: string,
    /** The Authorization header as sent; only its redacted bearer token is ever shown. */
    readonly authorization: string | undefined,
  ) {}

  /** The response closed at `endedAt` (performance.now()) with `status`. */
  closed(status: number, endedAt: number, warnings: readonly string[] | undefined): void {
    this.status = status;
    this.durationMs = endedAt - this.startedAt;
    this.warnings = warnings;
  }
}

function formatted(request: LoggedRequest): RequestLogEntry {
  const token = bearerTokenOf(request.authorization);
  return {
    at: formatTimestamp(request.at),
    method: request.method,
    path: request.path,
    status: request.status,
    duration_ms: Math.round(request.durationMs * 1000) / 1000,
    api_key: token === undefined ? null : redactKey(token),
    warnings: request.warnings === undefined ? [] : [...request.warnings],
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
    const ordered = this.entries.length < this.capacity
      ? this.entries
      : [...this.entries.slice(this.next), ...this.entries.slice(0, this.next)];
    return ordered.slice(Math.max(0, ordered.length - limit)).map(formatted);
  }

  clear(): void {
    this.entries.length = 0;
    this.next = 0;
  }
}
