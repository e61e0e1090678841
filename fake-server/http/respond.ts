import type { ServerResponse } from "node:http";
import type { ErrorBody, FakeErrorCode } from "../../schemas/index.ts";
import type { Behavior, Operation } from "../behavior.ts";

type Headers = Readonly<Record<string, string>>;

/** The one place that decides the status of a successful operation. */
export function successStatus(behavior: Behavior, operation: Operation): number {
  return behavior.successStatus[operation];
}

function writable(res: ServerResponse): boolean {
  return !res.headersSent && !res.destroyed && !res.writableEnded;
}

/** Sends an already serialised JSON body (also used to replay a stored body byte for byte). */
export function sendJsonText(res: ServerResponse, status: number, text: string, headers: Headers = {}): void {
  if (!writable(res)) return;
  res.writeHead(status, {
    ...headers,
    "Content-Type": "application/json",
    "Content-Length": String(Buffer.byteLength(text)),
  });
  res.end(text);
}

export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Headers = {}): void {
  sendJsonText(res, status, JSON.stringify(body), headers);
}

export function sendEmpty(res: ServerResponse, status: number, headers: Headers = {}): void {
  if (!writable(res)) return;
  res.writeHead(status, { ...headers });
  res.end();
}

/** The one function that writes an HTTP error body: `{"error": {"code", "message"}}`. */
export function sendError(
  res: ServerResponse,
  status: number,
  code: FakeErrorCode,
  message: string,
  headers: Headers = {},
): void {
  const body: ErrorBody = { error: { code, message } };
  sendJson(res, status, body, headers);
}
