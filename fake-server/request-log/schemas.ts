/**
 * Bodies of the fake's own /__fake control endpoints. They are not part of the service, so they
 * live with the fake rather than in schemas/.
 */
import { z } from "zod";
import { FakeTimestamp } from "../../schemas/index.ts";

export const RequestLogEntry = z.strictObject({
  at: FakeTimestamp,
  /** The session the request was in (X-Fake-Session; "default" without it). */
  session: z.string(),
  method: z.string(),
  /** The path without the query string. */
  path: z.string(),
  status: z.int(),
  duration_ms: z.number().nonnegative(),
  /** The bearer token's first 6 characters and "…", or null when none was sent. */
  api_key: z.string().nullable(),
  /** Lower-cased names as sent; Authorization redacted to "Bearer sk-fak…". */
  headers: z.record(z.string(), z.string()),
  /** The body parsed as JSON, or its text when it is not JSON or was cut at 8 KiB; null without one. */
  body: z.unknown(),
  /** Client rules of the spec this request did not follow (the fake serves it anyway). */
  warnings: z.array(z.string()),
  /** The id of the fault rule that applied to it, or null. */
  fault_rule: z.string().nullable(),
  /** The id of the answer rule that answered it, or null. */
  answer_rule: z.string().nullable(),
});
export type RequestLogEntry = z.infer<typeof RequestLogEntry>;

export const RequestLogPage = z.strictObject({ requests: z.array(RequestLogEntry) });
export type RequestLogPage = z.infer<typeof RequestLogPage>;

export const Health = z.strictObject({
  status: z.literal("ok"),
  conversations: z.int().nonnegative(),
  messages: z.int().nonnegative(),
  idempotency_records: z.int().nonnegative(),
});
export type Health = z.infer<typeof Health>;
