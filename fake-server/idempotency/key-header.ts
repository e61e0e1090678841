/**
 * The Idempotency-Key header of both creates (stage 7): required (400 `idempotency_key_missing`);
 * blank, over 255 characters or with control characters, 400 `idempotency_key_invalid`. The spec
 * names no format: a service may take only short tokens (the `strict-keys` variant), as a header
 * validator with a length and a pattern does.
 */
import type { IncomingMessage } from "node:http";
import { MAX_IDEMPOTENCY_KEY_LENGTH } from "../../schemas/index.ts";
import type { Behavior } from "../behavior/behavior.ts";
import { ApiError } from "../http/api-error.ts";

/** The keys a "short-token" service takes: what a common header validator allows. */
const SHORT_TOKEN = /^[A-Za-z0-9_-]{1,64}$/;

function invalid(why: string): ApiError {
  return new ApiError(400, "idempotency_key_invalid", `the Idempotency-Key header ${why}`);
}

/** The request's Idempotency-Key: required, not blank, at most 255 characters, no control characters. */
export function readIdempotencyKey(req: IncomingMessage, keys: Behavior["idempotencyKeys"] = "any"): string {
  const header = req.headers["idempotency-key"];
  if (header === undefined) {
    throw new ApiError(
      400,
      "idempotency_key_missing",
      "the Idempotency-Key header is required; send a new unique value (for example a UUID) for each logical operation",
    );
  }
  // Node joins repeated custom headers with ", "; keep that as the value rather than pick one.
  const key = Array.isArray(header) ? header.join(", ") : header;
  if (key.trim() === "") throw invalid("is blank; send a non-empty unique value");
  if (key.length > MAX_IDEMPOTENCY_KEY_LENGTH) {
    throw invalid(`is ${key.length} characters long; use at most ${MAX_IDEMPOTENCY_KEY_LENGTH}`);
  }
  if (/[\u0000-\u001f\u007f]/.test(key)) throw invalid("contains control characters; use printable characters only");
  if (keys === "short-token" && !SHORT_TOKEN.test(key))
    throw invalid("must be 1 to 64 letters, digits, '-' or '_' (for example a UUID)");
  return key;
}
