/**
 * A request as a client violation shows it: method, path, time and status, its Idempotency-Key and
 * body cut short, never a header, so a violation is small and safe to print.
 */
import type { ClientViolationRequest } from "../../schemas/index.ts";
import { formatTimestamp } from "../conversations/timestamps.ts";
import { canonicalJson } from "../../schemas/canonical-json.ts";
import type { ObservedRequest } from "./observed-request.ts";

const MAX_KEY_CHARS = 100;
const MAX_PATH_CHARS = 200;

/** Cuts text to `max` characters (whole code points), marking the cut with "…". */
export function truncate(text: string, max: number): string {
  if (text.length <= max) return text;
  const points = [...text];
  return points.length <= max ? text : `${points.slice(0, max).join("")}…`;
}

/** A short, stack-safe excerpt of a parsed JSON body (canonical key order). */
export function bodyExcerpt(body: unknown, max: number): string {
  return truncate(canonicalJson(body), max);
}

/** A request as a violation shows it: no headers at all, a cut idempotency key and body. */
export function renderRequest(request: ObservedRequest): ClientViolationRequest {
  return {
    method: request.method,
    path: truncate(request.path, MAX_PATH_CHARS),
    ...(request.idempotencyKey === undefined
      ? {}
      : { idempotencyKey: truncate(request.idempotencyKey, MAX_KEY_CHARS) }),
    at: formatTimestamp(request.at),
    ...(request.status === undefined ? {} : { status: request.status }),
    ...(request.payload === undefined ? {} : { bodyExcerpt: request.payload.excerpt }),
  };
}
