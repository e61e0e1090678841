/**
 * The body of both creates: as the spec states it, and as the fake accepts it, with the limits on
 * message, external_reference, metadata and the Idempotency-Key that the fake's checks and the
 * OpenAPI documents share.
 */
import { z } from "zod";
import { Uuid } from "./primitives.ts";

/**
 * Body of both create operations, as the spec states it. Metadata rules are a gap,
 * so this only pins that metadata is a JSON object.
 */
export const ResponseRequest = z.looseObject({
  message: z.string(),
  conversation_id: Uuid.nullable().optional(),
  external_reference: z.string().nullable().optional(),
  metadata: z.record(z.string(), z.unknown()).optional(),
});
export type ResponseRequest = z.infer<typeof ResponseRequest>;

export const METADATA_LIMITS = { maxKeys: 16, maxKeyLength: 64, maxValueLength: 512 } as const;
export const MESSAGE_MAX_LENGTH = 32_000;
export const EXTERNAL_REFERENCE_MAX_LENGTH = 256;
/** The longest Idempotency-Key header the fake accepts (the OpenAPI document states it too). */
export const MAX_IDEMPOTENCY_KEY_LENGTH = 255;

const isJsonObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/**
 * The fake's metadata rule: a flat object of at most 16 string values, keys up to 64
 * characters. Written by hand rather than with z.record because a record rebuilds the
 * object and silently drops a `__proto__` key; here every key is kept as plain data in a
 * prototype-free copy, so nothing the client sent is lost and nothing is polluted.
 */
export const FakeMetadata = z
  .unknown()
  .superRefine((value, ctx) => {
    if (!isJsonObject(value)) {
      ctx.addIssue({ code: "custom", message: "metadata must be a JSON object" });
      return;
    }
    const keys = Object.keys(value);
    if (keys.length > METADATA_LIMITS.maxKeys) {
      ctx.addIssue({
        code: "custom",
        message: `metadata has ${keys.length} keys; at most ${METADATA_LIMITS.maxKeys} are allowed`,
      });
    }
    for (const key of keys) {
      const entry = value[key];
      if (key.length === 0 || key.length > METADATA_LIMITS.maxKeyLength) {
        ctx.addIssue({
          code: "custom",
          path: [key],
          message: `metadata keys must be 1 to ${METADATA_LIMITS.maxKeyLength} characters`,
        });
      }
      if (typeof entry !== "string") {
        ctx.addIssue({ code: "custom", path: [key], message: "metadata values must be strings" });
      } else if (entry.length > METADATA_LIMITS.maxValueLength) {
        ctx.addIssue({
          code: "custom",
          path: [key],
          message: `metadata values must be at most ${METADATA_LIMITS.maxValueLength} characters`,
        });
      }
    }
  })
  .transform((value) => Object.assign(Object.create(null), value) as Record<string, string>);

/** The body the fake accepts: the spec's fields with the fake's limits; unknown fields are ignored. */
export const FakeResponseRequest = z.object({
  message: z.string().min(1).max(MESSAGE_MAX_LENGTH),
  conversation_id: Uuid.nullable().optional(),
  external_reference: z.string().max(EXTERNAL_REFERENCE_MAX_LENGTH).nullable().optional(),
  metadata: FakeMetadata.optional(),
});
export type FakeResponseRequest = z.infer<typeof FakeResponseRequest>;
