/**
 * The session a request is in: `X-Fake-Session` on /v1, `?session=` on /__fake, a name of 1 to 64
 * safe characters (400 otherwise); none means "default".
 */
import { ApiError } from "../http/api-error.ts";

/** The header that puts a /v1 request in a session; /__fake endpoints take `?session=` instead. */
export const SESSION_HEADER = "x-fake-session";
export const DEFAULT_SESSION = "default";

const SESSION_NAME = /^[A-Za-z0-9._-]{1,64}$/;

/**
 * The session a request names, checked: 1–64 of [A-Za-z0-9._-]; absent means "default".
 * `where` names the header or the query parameter in the 400.
 */
export function sessionName(value: unknown, where: string): string {
  if (value === undefined) return DEFAULT_SESSION;
  if (typeof value === "string" && SESSION_NAME.test(value)) return value;
  const shown = typeof value === "string" ? JSON.stringify(value.slice(0, 80)) : "given more than once";
  throw new ApiError(
    400,
    "invalid_request",
    `${where} must be 1 to 64 of the characters A-Z a-z 0-9 . _ -, not ${shown}`,
  );
}
