/**
 * How a handler learns that its client went away, and how the fake cuts a connection on purpose (a
 * dropped stream), as a network failure would.
 */
import type { ServerResponse } from "node:http";

/** Aborts when the connection closes before the response was finished (client gone or dropped). */
export function clientGoneSignal(res: ServerResponse): AbortSignal {
  const controller = new AbortController();
  if (res.destroyed) controller.abort();
  res.once("close", () => {
    if (!res.writableFinished) controller.abort();
  });
  return controller.signal;
}

/** Cuts the connection as a network failure would (the socket goes with the response). */
export function dropConnection(res: ServerResponse): void {
  res.destroy();
}
