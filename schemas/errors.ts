import { z } from "zod";

/** The one error code the spec names. */
export const CONVERSATION_NOT_FOUND = "conversation_not_found";

/** Every code the fake sends in an HTTP error body or an `error` event. */
export const FakeErrorCode = z.enum([
  "unauthorized",
  "invalid_json",
  "invalid_request",
  "invalid_metadata",
  "invalid_pagination",
  "idempotency_key_missing",
  "idempotency_key_invalid",
  "idempotency_key_reused",
  "idempotency_key_in_use",
  "conversation_not_found",
  "not_found",
  "method_not_allowed",
  "payload_too_large",
  "unsupported_media_type",
  "not_acceptable",
  "rate_limited",
  "internal_error",
  "service_unavailable",
  "agent_failed",
]);
export type FakeErrorCode = z.infer<typeof FakeErrorCode>;

/** The fake's HTTP error body: `{"error": {"code", "message"}}`. */
export const ErrorBody = z.strictObject({
  error: z.strictObject({ code: FakeErrorCode, message: z.string().min(1) }),
});
export type ErrorBody = z.infer<typeof ErrorBody>;

// Spec strength: the error body format is a gap. These are the three shapes the suite
// reads a code from; anything else is an error body without a machine-readable code.

export const NestedErrorBody = z.looseObject({
  error: z.looseObject({ code: z.string().min(1) }),
});
export const FlatErrorBody = z.looseObject({ code: z.string().min(1) });
/** RFC 9457 problem details; the code is a `code` member or the last segment of `type`. */
export const ProblemBody = z.looseObject({
  type: z.string().min(1),
  title: z.string().optional(),
  status: z.number().optional(),
  detail: z.string().optional(),
});

/** The machine-readable code of an HTTP error body of any accepted shape, if it has one. */
export function errorCode(body: unknown): string | undefined {
  const nested = NestedErrorBody.safeParse(body);
  if (nested.success) return nested.data.error.code;
  const flat = FlatErrorBody.safeParse(body);
  if (flat.success) return flat.data.code;
  const problem = ProblemBody.safeParse(body);
  if (problem.success) {
    const segment = problem.data.type.split(/[/#:]/).filter(Boolean).pop();
    return segment && segment !== "about:blank" && segment !== "blank" ? segment : undefined;
  }
  return undefined;
}
