/**
 * The control endpoints that inspect or reset the fake: `POST /__fake/reset`,
 * `GET /__fake/requests` and `GET /__fake/health`.
 */
import type { ServerResponse } from "node:http";
import type { Health, RequestLogPage } from "../request-log/schemas.ts";
import type { AppContext, FakeRequest } from "../context.ts";
import { ApiError } from "../http/api-error.ts";
import { sendEmpty, sendJson } from "../http/respond.ts";

/** POST /__fake/reset: empties every session, or with ?session=NAME that one alone. */
export function resetRoute(reset: () => void) {
  return (ctx: AppContext, req: FakeRequest, res: ServerResponse): void => {
    if (Object.hasOwn(req.query, "session")) ctx.session.clear();
    else reset();
    sendEmpty(res, 204);
  };
}

/** GET /__fake/requests?limit=N: the most recent requests, oldest first. */
export function requestsRoute(ctx: AppContext, req: FakeRequest, res: ServerResponse): void {
  const query: Readonly<Record<string, unknown>> = req.query;
  const raw = Object.hasOwn(query, "limit") ? query["limit"] : undefined;
  const capacity = ctx.requestLog.capacity;
  let limit = capacity;
  if (raw !== undefined) {
    limit = typeof raw === "string" && /^\d+$/.test(raw) ? Number(raw) : Number.NaN;
    if (!(limit >= 1))
      throw new ApiError(400, "invalid_request", `limit must be a positive integer, not ${JSON.stringify(raw)}`);
  }
  const body: RequestLogPage = { requests: ctx.requestLog.recent(Math.min(limit, capacity)) };
  sendJson(res, 200, body);
}

/** GET /__fake/health */
export function healthRoute(ctx: AppContext, _req: FakeRequest, res: ServerResponse): void {
  const stats = ctx.conversations.stats();
  const body: Health = {
    status: "ok",
    conversations: stats.conversations,
    messages: stats.messages,
    idempotency_records: ctx.idempotency.size,
  };
  sendJson(res, 200, body);
}
