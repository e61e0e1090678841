/**
 * The Idempotency-Key header of both creates (stage 7): required (400 `idempotency_key_missing`);
 * blank, over 255 characters or with control characters, 400 `idempotency_key_invalid`.
 */
import type { IncomingMessage } from "node:http";
import { MAX_IDEMPOTENCY_KEY_LENGTH } from "../../schemas/index.ts";
import { ApiError } from "../http/api-error.ts";

function invalid(why: string): ApiError {
  return new ApiError(400, "idempotency_key_invalid", `the Idempotency-Key header ${why}`);
}

/** The request's Idempotency-Key: required, not blank, at most 255 characters, no control characters. */
export function readIdempotencyKey(req: IncomingMessage): string {
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
  return key;
}
