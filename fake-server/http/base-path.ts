/**
 * A path prefix before /v1 (the base-path variant and the `basePath` option), as a service
 * behind a gateway serves `/api/agents-service/v1/...`. The fake's routes stay as they are:
 * the prefix is taken off a request's URL before polka sees it. `/__fake` stays at the root.
 */
import type { IncomingMessage, ServerResponse } from "node:http";

/** The variant's prefix. */
export const GATEWAY_BASE_PATH = "/api/agents-service";

/** Characters of a path segment (RFC 3986 pchar), percent escapes included. */
const SEGMENT = /^(?:[A-Za-z0-9\-._~!$&'()*+,;=:@]|%[0-9A-Fa-f]{2})+$/;

/**
 * Why `path` cannot be a base path, or undefined when it can: it starts with "/", has
 * non-empty segments of path characters and no "." or ".." segment, carries no query or
 * fragment, and is neither /v1 nor under /__fake. A trailing "/" is not part of it.
 */
export function basePathProblem(path: string): string | undefined {
  if (!path.startsWith("/")) return `it must start with "/"`;
  if (path.includes("?") || path.includes("#")) return "it must not carry a query or a fragment";
  const segments = path.slice(1).split("/");
  if (segments.some((segment) => segment === "." || segment === ".."))
    return `it must not contain "." or ".." segments`;
  if (segments.some((segment) => !SEGMENT.test(segment)))
    return "its segments must be non-empty and made of URL path characters";
  if (segments[0]?.toLowerCase() === "__fake") return "/__fake is where the fake's control endpoints are";
  if (segments.at(-1)?.toLowerCase() === "v1") return "it comes before /v1, so it must not end with /v1 itself";
  return undefined;
}

/** `path` without a trailing "/", "/" alone meaning no prefix. */
export function normalisedBasePath(path: string): string {
  return path.endsWith("/") ? path.slice(0, -1) : path;
}

const startsSegment = (url: string, at: number) => at === url.length || url[at] === "/" || url[at] === "?";

/**
 * `handler` serving under `basePath`: a request under the prefix reaches it without the
 * prefix, a request for /__fake reaches it as is, and every other request (the API without
 * the prefix, /__fake under it) is answered by `outside`.
 */
export function underBasePath(
  basePath: string,
  handler: (req: IncomingMessage, res: ServerResponse) => void,
  outside: (req: IncomingMessage, res: ServerResponse) => void,
): (req: IncomingMessage, res: ServerResponse) => void {
  return (req, res) => {
    const url = req.url ?? "/";
    if (url.startsWith(basePath) && startsSegment(url, basePath.length)) {
      const rest = url.slice(basePath.length);
      const inside = rest === "" || rest.startsWith("?") ? `/${rest}` : rest;
      if (!/^\/__fake(?:[/?]|$)/i.test(inside)) {
        req.url = inside;
        handler(req, res);
        return;
      }
    } else if (/^\/__fake(?:[/?]|$)/i.test(url)) {
      handler(req, res);
      return;
    }
    outside(req, res);
  };
}
