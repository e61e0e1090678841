import { z } from "zod";
import { FakeTimestamp } from "../../schemas/index.ts";

// Bodies of the fake's own /__fake control endpoints. They are not part of the service,
// so they live with the fake rather than in schemas/.

export const RequestLogEntry = z.strictObject({
  at: FakeTimestamp,
  method: z.string(),
  /** The path without the query string. */
  path: z.string(),
  status: z.int(),
  duration_ms: z.number().nonnegative(),
  /** The bearer token's first 6 characters and "…", or null when none was sent. */
  api_key: z.string().nullable(),
  /** Client rules of the spec this request did not follow (the fake serves it anyway). */
  warnings: z.array(z.string()),
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
