/**
 * The API key check of every /v1 request (stage 4): the Bearer token of the Authorization header
 * looked up among the configured keys, a 401 with `WWW-Authenticate: Bearer` otherwise; and the two
 * mutants that let a request past it.
 */
import type { IncomingMessage } from "node:http";
import type { Behavior, Operation } from "../behavior/behavior.ts";
import { ApiError } from "../http/api-error.ts";
import type { ApiKeyGrant } from "./keys.ts";

const CHALLENGE = { "WWW-Authenticate": "Bearer" } as const;
const BEARER = /^Bearer +([^\s]+) *$/i;

function unauthorized(message: string): ApiError {
  return new ApiError(401, "unauthorized", message, CHALLENGE);
}

/** The grant of the request's bearer key; 401 for a missing, malformed or unknown key. */
export function authenticate(req: IncomingMessage, keys: ReadonlyMap<string, ApiKeyGrant>): ApiKeyGrant {
  const header = req.headers.authorization;
  if (header === undefined || header === "") {
    throw unauthorized("the request has no Authorization header; send Authorization: Bearer <API_KEY>");
  }
  const token = BEARER.exec(header)?.[1];
  if (token === undefined) {
    throw unauthorized("the Authorization header must be of the form Bearer <API_KEY>");
  }
  const grant = keys.get(token);
  if (!grant) throw unauthorized("the API key is not known to this server; check the key you configured");
  return grant;
}

/** The bearer token of an Authorization header value, if it is of the form the key check accepts. */
export function bearerTokenOf(header: string | undefined): string | undefined {
  return header === undefined ? undefined : BEARER.exec(header)?.[1];
}

/** The operation a request is for, from its method and path (undefined: none of the four). */
function operationOf(method: string | undefined, path: string): Operation | undefined {
  if (method === "POST" && /^\/v1\/agents\/[^/]+\/responses$/i.test(path)) return "create";
  if (method === "POST" && /^\/v1\/agents\/[^/]+\/responses\/stream$/i.test(path)) return "stream";
  if (method === "GET" && /^\/v1\/agents\/[^/]+\/conversations\/[^/]+\/messages$/i.test(path)) return "list";
  if (method === "DELETE" && /^\/v1\/agents\/[^/]+\/conversations\/[^/]+$/i.test(path)) return "delete";
  return undefined;
}

/**
 * Mutant support: on the one operation whose key check a mutant skips, a request without a
 * valid key is served as the first configured key. Undefined everywhere else.
 */
export function skippedAuthGrant(
  req: IncomingMessage & { path: string },
  behavior: Behavior,
  keys: ReadonlyMap<string, ApiKeyGrant>,
): ApiKeyGrant | undefined {
  const skipped = behavior.broken.authSkippedOn;
  if (skipped === null || operationOf(req.method, req.path) !== skipped) return undefined;
  return keys.values().next().value;
}

/**
 * Mutant support (behavior.broken.streamAuthByConversation): whether a stream request that
 * failed the key check is let on to its body, which may name a conversation to authenticate by
 * (exchange/auth-by-conversation.ts). False everywhere else.
 */
export function authDeferredToBody(req: IncomingMessage & { path: string }, behavior: Behavior): boolean {
  return behavior.broken.streamAuthByConversation && operationOf(req.method, req.path) === "stream";
}
