/**
 * A create's body checked against the fake's request schema: 400 `invalid_request`, or
 * `invalid_metadata` when only `metadata` is wrong; and the mutants that refuse shapes the spec
 * allows.
 */
import { z } from "zod";
import { FakeResponseRequest } from "../../schemas/index.ts";
import { DEFAULT_BEHAVIOR, type Behavior } from "../behavior/behavior.ts";
import { ApiError } from "../http/api-error.ts";

const FIELDS =
  "expected fields: message (non-empty string), conversation_id (UUID or null), " +
  "external_reference (string or null), metadata (object of up to 16 string values)";

/**
 * The parsed JSON body checked against the fake's request schema. A failure that lies only
 * in `metadata` is `invalid_metadata`; any other is `invalid_request`. Nothing is stored.
 */
export function validateResponseRequest(
  body: unknown,
  behavior: Pick<Behavior, "broken"> = DEFAULT_BEHAVIOR,
  operation: "create" | "stream" = "create",
): FakeResponseRequest {
  const { broken } = behavior;
  const fields =
    typeof body === "object" && body !== null && !Array.isArray(body) ? (body as Record<string, unknown>) : undefined;
  // Two mutants: one refuses any metadata, one answers a body without a string message.
  if (broken.metadataRejected && fields !== undefined && Object.hasOwn(fields, "metadata")) {
    throw new ApiError(400, "invalid_metadata", "metadata is not accepted by this server");
  }
  const lenient = broken.messageOptional && fields !== undefined && typeof fields["message"] !== "string";
  const parsed = FakeResponseRequest.safeParse(lenient ? { ...fields, message: "(no message)" } : body);
  if (parsed.success) {
    // Two more refuse a valid body's shape that the spec allows.
    refuseAllowedShapes(broken, fields, operation);
    return parsed.data;
  }
  const onlyMetadata = parsed.error.issues.every((issue) => issue.path[0] === "metadata");
  const detail = z
    .prettifyError(parsed.error)
    .split("\n")
    .map((line) => line.trim())
    .join(" ");
  throw new ApiError(
    400,
    onlyMetadata ? "invalid_metadata" : "invalid_request",
    `the request body is invalid: ${detail} (${FIELDS})`,
  );
}

/**
 * Mutants only: `metadata: {}` refused as blank (a presence validation that takes an empty
 * object for a missing one), and `external_reference: null` refused by the stream's own request
 * schema, which declares the field a string but not nullable.
 */
function refuseAllowedShapes(
  broken: Behavior["broken"],
  fields: Record<string, unknown> | undefined,
  operation: "create" | "stream",
): void {
  if (fields === undefined) return;
  const metadata = fields["metadata"];
  if (
    broken.emptyMetadataRefused &&
    typeof metadata === "object" &&
    metadata !== null &&
    !Array.isArray(metadata) &&
    Object.keys(metadata).length === 0
  ) {
    throw new ApiError(400, "invalid_metadata", `the request body is invalid: metadata can't be blank (${FIELDS})`);
  }
  if (
    broken.streamNullReferenceRefused &&
    operation === "stream" &&
    Object.hasOwn(fields, "external_reference") &&
    fields["external_reference"] === null
  ) {
    throw new ApiError(
      400,
      "invalid_request",
      `the request body is invalid: external_reference must be a string (${FIELDS})`,
    );
  }
}
