import type { ServerResponse } from "node:http";
import { EVENT } from "../../schemas/index.ts";
import type { AppContext, FakeRequest } from "../context.ts";
import { ServerClosingError } from "../pause/pause.ts";
import { ApiError, ClientGoneError } from "./api-error.ts";
import { sendError, sendJson } from "./respond.ts";
import { endEventStream, writeEvent } from "./sse.ts";

const INTERNAL_MESSAGE = "the fake server hit an unexpected error (it is logged on the server side); the request may be retried";

/**
 * Turns whatever a handler threw into a response: an ApiError becomes its error body; an
 * unexpected exception is logged and becomes a 500 (or, once a stream has started, an
 * `error` event), and the server keeps serving.
 */
export function fail(ctx: AppContext, req: FakeRequest, res: ServerResponse, error: unknown): void {
  if (error instanceof ApiError && !res.headersSent) {
    ctx.clientRules.errorAnswered(req, error.headers);
    sendError(res, ctx.behavior, error.status, error.code, error.message, error.headers);
    return;
  }
  if (error instanceof ClientGoneError || error instanceof ServerClosingError) {
    res.destroy();
    return;
  }
  const detail = error instanceof Error ? (error.stack ?? error.message) : String(error);
  ctx.log(`fake-server: unexpected error in ${req.method} ${req.path}: ${detail}`);
  if (!res.headersSent) {
    sendError(res, ctx.behavior, 500, "internal_error", INTERNAL_MESSAGE);
  } else if (String(res.getHeader("content-type")).startsWith("text/event-stream") && !res.writableEnded && !res.destroyed) {
    writeEvent(res, ctx.behavior, { type: EVENT.error, code: "internal_error", message: INTERNAL_MESSAGE });
    endEventStream(res);
  } else {
    res.destroy();
  }
}

/**
 * The same for the fake's own /__fake endpoints: their errors always have the fake's
 * `{"error": {"code", "message"}}` shape, whatever error shape the variants give the API.
 */
export function failControl(ctx: AppContext, req: FakeRequest, res: ServerResponse, error: unknown): void {
  if (error instanceof ApiError && !res.headersSent) {
    sendJson(res, error.status, { error: { code: error.code, message: error.message } }, error.headers);
    return;
  }
  fail(ctx, req, res, error);
}
