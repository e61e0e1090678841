import type { ServerResponse } from "node:http";
import type { StreamEvent } from "../../schemas/index.ts";
import type { Behavior } from "../behavior.ts";

/** Starts an event stream: the headers go out at once, before the first event exists. */
export function startEventStream(res: ServerResponse, status: number, headers: Readonly<Record<string, string>> = {}): void {
  res.writeHead(status, {
    ...headers,
    "Content-Type": "text/event-stream; charset=utf-8",
    "Cache-Control": "no-cache",
  });
  res.flushHeaders();
}

/**
 * The one SSE event writer: `event: NAME`, `data: JSON`, blank line, in a single write
 * as soon as the event is produced. The event name is the payload's `type`, so the two
 * cannot disagree; JSON.stringify never emits a raw line break, so `data` is one line.
 * Returns false when the client is gone and nothing was written; otherwise `onFlushed`
 * runs once the bytes have left the process.
 */
export function writeEvent(
  res: ServerResponse,
  behavior: Pick<Behavior, "sseLineEnding">,
  event: StreamEvent,
  onFlushed?: () => void,
): boolean {
  if (res.destroyed || res.writableEnded) return false;
  if (/[\r\n]/.test(event.type)) throw new Error(`event name ${JSON.stringify(event.type)} contains a line break`);
  const eol = behavior.sseLineEnding;
  res.write(`event: ${event.type}${eol}data: ${JSON.stringify(event)}${eol}${eol}`, onFlushed);
  return true;
}
