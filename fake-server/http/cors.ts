/**
 * CORS for browser apps on another origin (DESIGN: "The fake as a client developer's tool").
 * Every /v1 and /__fake answer allows any origin and exposes the headers a client reads; a
 * preflight (OPTIONS) on those paths is answered here, before the key check and the
 * client-rule observer: a browser sends it on its own, without the app's headers.
 */
import type { IncomingMessage, ServerResponse } from "node:http";

type Listener = (req: IncomingMessage, res: ServerResponse) => void;

const ALLOWED_METHODS = "GET, HEAD, POST, DELETE, OPTIONS";
const ALLOWED_HEADERS = [
  "Authorization",
  "Content-Type",
  "Idempotency-Key",
  "Accept",
  "X-Fake-Fault",
  "X-Fake-Session",
];
const EXPOSED_HEADERS = "Idempotent-Replayed, Retry-After, WWW-Authenticate";
/** Header names a preflight may ask for: tokens only, so an echo cannot inject anything. */
const HEADER_LIST = /^[A-Za-z0-9!#$%&'*+.^_`|~-]+(?:\s*,\s*[A-Za-z0-9!#$%&'*+.^_`|~-]+)*$/;
/** Longer than any app's list: not echoed, so a hostile preflight cannot swell the answer. */
const MAX_REQUESTED_LENGTH = 1024;
const PREFLIGHT_CACHE_SECONDS = "600";

function pathOf(url: string): string {
  const query = url.indexOf("?");
  return (query === -1 ? url : url.slice(0, query)).toLowerCase();
}

const under = (path: string, prefix: string) =>
  path.startsWith(prefix) && (path.length === prefix.length || path.charCodeAt(prefix.length) === 0x2f);

/** The allowed headers: the fake's own list, plus whatever else the browser asks for. */
function allowedHeaders(requested: string | undefined): string {
  if (requested === undefined || requested.length > MAX_REQUESTED_LENGTH || !HEADER_LIST.test(requested.trim())) {
    return ALLOWED_HEADERS.join(", ");
  }
  const known = new Set(ALLOWED_HEADERS.map((name) => name.toLowerCase()));
  const extra = requested
    .split(",")
    .map((name) => name.trim())
    .filter((name) => !known.has(name.toLowerCase()));
  return [...ALLOWED_HEADERS, ...extra].join(", ");
}

/** `handler` with CORS on the API (under `basePath`) and the control endpoints. */
export function withCors(basePath: string, handler: Listener): Listener {
  const api = `${basePath.toLowerCase()}/v1`;
  return (req, res) => {
    const path = pathOf(req.url ?? "/");
    if (!under(path, api) && !under(path, "/__fake")) {
      handler(req, res);
      return;
    }
    res.setHeader("Access-Control-Allow-Origin", "*");
    res.setHeader("Access-Control-Expose-Headers", EXPOSED_HEADERS);
    if (req.method !== "OPTIONS") {
      handler(req, res);
      return;
    }
    const requested = req.headers["access-control-request-headers"];
    res.writeHead(204, {
      "Access-Control-Allow-Methods": ALLOWED_METHODS,
      "Access-Control-Allow-Headers": allowedHeaders(Array.isArray(requested) ? requested.join(",") : requested),
      "Access-Control-Max-Age": PREFLIGHT_CACHE_SECONDS,
      // Chrome's Private Network Access: a page on a public origin (a deployed preview of the
      // app) may call the fake on localhost only when the preflight says so.
      ...(req.headers["access-control-request-private-network"] === "true"
        ? { "Access-Control-Allow-Private-Network": "true" }
        : {}),
    });
    res.end();
    // The request body, if any, is not read: drain it so the connection stays usable.
    req.resume();
  };
}
