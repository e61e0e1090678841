/**
 * The one error writer of the pipeline: whatever a handler threw becomes its response (an
 * ApiError's body, else a logged 500, or an `error` event once a stream started), so the fake keeps
 * serving after any failure.
 */
import type { ServerResponse } from "node:http";
import { EVENT } from "../../schemas/index.ts";
import type { Behavior } from "../behavior/behavior.ts";
import { ApiError, ClientGoneError, ServerClosingError } from "./api-error.ts";
import { sendError, sendJson } from "./respond.ts";
import { endEventStream, writeEvent } from "./sse.ts";

const INTERNAL_MESSAGE =
  "the fake server hit an unexpected error (it is logged on the server side); the request may be retried";

/** What the error writer uses: the behavior's error shape, and where an unexpected error is logged. */
export interface FailContext {
  readonly behavior: Behavior;
  log(line: string): void;
}

/** What the error writer names of the request in the log line of an unexpected error. */
export interface FailedRequest {
  readonly method?: string | undefined;
  readonly path: string;
}

/**
 * Turns whatever a handler threw into a response: an ApiError becomes its error body; an
 * unexpected exception is logged and becomes a 500 (or, once a stream has started, an
 * `error` event), and the server keeps serving. Returns the ApiError whose body was sent,
 * so the caller can tell the client-rule observer of its headers.
 */
export function fail(ctx: FailContext, req: FailedRequest, res: ServerResponse, error: unknown): ApiError | undefined {
  if (error instanceof ApiError && !res.headersSent) {
    sendError(res, ctx.behavior, error.status, error.code, error.message, error.headers);
    return error;
  }
  if (error instanceof ClientGoneError || error instanceof ServerClosingError) {
    res.destroy();
    return undefined;
  }
  const detail = error instanceof Error ? (error.stack ?? error.message) : String(error);
  ctx.log(`fake-server: unexpected error in ${req.method} ${req.path}: ${detail}`);
  if (!res.headersSent) {
    sendError(res, ctx.behavior, 500, "internal_error", INTERNAL_MESSAGE);
  } else if (
    String(res.getHeader("content-type")).startsWith("text/event-stream") &&
    !res.writableEnded &&
    !res.destroyed
  ) {
    writeEvent(res, ctx.behavior, { type: EVENT.error, code: "internal_error", message: INTERNAL_MESSAGE });
    endEventStream(res);
  } else {
    res.destroy();
  }
  return undefined;
}

/**
 * The same for the fake's own /__fake endpoints: their errors always have the fake's
 * `{"error": {"code", "message"}}` shape, whatever error shape the variants give the API.
 */
export function failControl(ctx: FailContext, req: FailedRequest, res: ServerResponse, error: unknown): void {
  if (error instanceof ApiError && !res.headersSent) {
    sendJson(res, error.status, { error: { code: error.code, message: error.message } }, error.headers);
    return;
  }
  fail(ctx, req, res, error);
}
