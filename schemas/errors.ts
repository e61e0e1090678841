/**
 * Error bodies and codes: every code the fake sends and its own `{"error": {"code", "message"}}`
 * body (fake strength), and the shapes the suite reads a code from, since the spec leaves the error
 * format open (spec strength).
 */
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
  "conversation_exists",
]);
export type FakeErrorCode = z.infer<typeof FakeErrorCode>;

/** The fake's HTTP error body: `{"error": {"code", "message"}}`. */
export const ErrorBody = z.strictObject({
  error: z.strictObject({ code: FakeErrorCode, message: z.string().min(1) }),
});
export type ErrorBody = z.infer<typeof ErrorBody>;

// Spec strength: the error body format is a gap. These are the shapes the suite reads a code
// from; anything else is an error body without a machine-readable code.

const Code = z.string().min(1);

/** `{"error": {"code", …}}`, the fake's own shape. */
export const NestedErrorBody = z.looseObject({
  error: z.looseObject({ code: Code }),
});
/** A top-level `code`, which is also RFC 9457's `code` extension member. */
export const FlatErrorBody = z.looseObject({ code: Code });
/**
 * FastAPI's `HTTPException(detail={...})`. Its validation list, `{"detail": [{"loc", "msg",
 * "type"}]}`, carries no code: an item's `type` is the rule one field broke ("missing" for a
 * missing message and a missing Idempotency-Key header alike), so it does not say which
 * refusal this is; only `loc` does.
 */
export const FastApiErrorBody = z.looseObject({
  detail: z.looseObject({ code: Code }),
});
/** A JSON:API error document: the first error object's `code`. */
export const JsonApiErrorBody = z.looseObject({
  errors: z.tuple([z.looseObject({ code: Code })], z.unknown()),
});
/** RFC 9457 problem details; the code is a `code` member or the last segment of `type`. */
export const ProblemBody = z.looseObject({
  type: z.string().min(1),
  title: z.string().optional(),
  status: z.number().optional(),
  detail: z.string().optional(),
});

/** The last segment of a problem `type` URI; `about:blank` says only "see the status". */
function typeSegment(type: string | undefined): string | undefined {
  const segment = type?.split(/[/#:]/).filter(Boolean).pop();
  return segment && type !== "about:blank" ? segment : undefined;
}

/**
 * The machine-readable code of an HTTP error body of any accepted shape, if it has one. When a
 * body has several, the first of `error.code`, `code`, `detail.code`, `errors[0].code` and a
 * problem `type` wins: a member named `code` names the error more precisely than a type URI.
 */
export function errorCode(body: unknown): string | undefined {
  return (
    NestedErrorBody.safeParse(body).data?.error.code ??
    FlatErrorBody.safeParse(body).data?.code ??
    FastApiErrorBody.safeParse(body).data?.detail.code ??
    JsonApiErrorBody.safeParse(body).data?.errors[0].code ??
    typeSegment(ProblemBody.safeParse(body).data?.type)
  );
}
