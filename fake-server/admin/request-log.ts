import type { RequestLogEntry } from "./schemas.ts";

/** The last `capacity` requests, oldest first; older ones are overwritten. */
export class RequestLog {
  private readonly entries: RequestLogEntry[] = [];
  private next = 0;

  constructor(readonly capacity: number) {}

  add(entry: RequestLogEntry): void {
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
    return ordered.slice(Math.max(0, ordered.length - limit));
  }

  clear(): void {
    this.entries.length = 0;
    this.next = 0;
  }
}
