import { z } from "zod";
import { FakeResponseRequest } from "../../schemas/index.ts";
import { ApiError } from "../http/api-error.ts";

const FIELDS =
  "expected fields: message (non-empty string), conversation_id (UUID or null), " +
  "external_reference (string or null), metadata (object of up to 16 string values)";

/**
 * The parsed JSON body checked against the fake's request schema. A failure that lies only
 * in `metadata` is `invalid_metadata`; any other is `invalid_request`. Nothing is stored.
 */
export function validateResponseRequest(body: unknown): FakeResponseRequest {
  const parsed = FakeResponseRequest.safeParse(body);
  if (parsed.success) return parsed.data;
  const onlyMetadata = parsed.error.issues.every((issue) => issue.path[0] === "metadata");
  const detail = z.prettifyError(parsed.error).split("\n").map((line) => line.trim()).join(" ");
  throw new ApiError(
    400,
    onlyMetadata ? "invalid_metadata" : "invalid_request",
    `the request body is invalid: ${detail} (${FIELDS})`,
  );
}
