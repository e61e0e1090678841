import type { IncomingMessage } from "node:http";
import { ApiError } from "./http/api-error.ts";
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

/** The bearer token of a request if it has one, whether or not it is valid (for the request log). */
export function bearerToken(req: IncomingMessage): string | undefined {
  const header = req.headers.authorization;
  return header === undefined ? undefined : BEARER.exec(header)?.[1];
}
