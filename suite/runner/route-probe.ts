/**
 * Telling a missing route from a missing resource. A framework's "not found" for an unknown
 * conversation may carry no code (FastAPI's HTTPException(404, "Conversation not found") gives
 * {"detail": "Conversation not found"}), which alone looks like a router's 404 for a wrong base
 * URL. The answer to a path that surely has no route settles it: a router answers both alike,
 * a service that routed the listing answers it differently.
 */

import { randomBytes } from "node:crypto";
import type { Dispatcher } from "undici";
import { segment } from "../http/endpoints.ts";
import { flattenHeaders, readCappedText } from "../http/response-body.ts";
import type { Identity } from "../http/types.ts";

export interface RouteAnswer {
  status: number;
  headers: Record<string, string>;
  text: string;
  /** The request's path, which routers often quote in their 404. */
  path: string;
}

export type AskNoSuchRoute = (as: Identity) => Promise<RouteAnswer | undefined>;

interface RouteProbeOptions {
  baseUrl: string;
  dispatcher: Dispatcher;
  /** Sent on every request (--header). */
  headers: Record<string, string>;
  requestTimeoutMs: number;
  maxResponseBytes: number;
}

/** A GET of …/v1/agents/AGENT/no-such-route-RANDOM as `as`; undefined when nothing answered. */
export function noSuchRouteProbe(options: RouteProbeOptions): AskNoSuchRoute {
  const url = new URL(options.baseUrl);
  const prefix = url.pathname.replace(/\/+$/, "");
  return async (as) => {
    const path = `${prefix}/v1/agents/${segment(as.agentId)}/no-such-route-${randomBytes(6).toString("hex")}`;
    const headers: Record<string, string> = { accept: "application/json", ...options.headers };
    if (as.apiKey !== null) headers.authorization = `Bearer ${as.apiKey}`;
    try {
      const response = await options.dispatcher.request({
        origin: url.origin,
        path,
        method: "GET",
        headers,
        headersTimeout: options.requestTimeoutMs,
        bodyTimeout: options.requestTimeoutMs,
      });
      const answerHeaders = flattenHeaders(response.headers);
      const text = await readCappedText(response.body, options.maxResponseBytes, answerHeaders["content-length"]);
      return { status: response.statusCode, headers: answerHeaders, text, path };
    } catch {
      return undefined;
    }
  };
}

/** The answer with what differs from request to request blanked: the path, ids, numbers (times). */
function comparable(text: string, path: string): string {
  const paths = [path, decodeURIComponent(path), path.replaceAll("/", "\\/")];
  let out = text;
  for (const p of paths) out = out.split(p).join("<path>");
  return out
    .replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi, "<id>")
    .replace(/no-such-route-[0-9a-f]+/g, "<id>")
    .replace(/\d+/g, "0")
    .trim();
}

/** Whether two 404s read alike once their paths, ids and times are blanked: the same router's answer. */
export function sameNotFound(a: RouteAnswer, b: RouteAnswer): boolean {
  return a.status === b.status && comparable(a.text, a.path) === comparable(b.text, b.path);
}
