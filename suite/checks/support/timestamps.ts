/**
 * RFC 3339 timestamps (LIST-8): an ISO 8601 date-time that carries its UTC offset. A timestamp
 * without one is valid ISO 8601 but names no instant, and the message says exactly that.
 */
import { z } from "zod";

const isoWithoutOffset = z.iso.datetime({ local: true });

export const Rfc3339 = z.iso.datetime({
  offset: true,
  error: (issue) =>
    isoWithoutOffset.safeParse(issue.input).success
      ? "valid ISO 8601 but not RFC 3339 (no UTC offset, such as Z or +01:00)"
      : "not an RFC 3339 date-time (e.g. 2026-11-25T10:00:00Z)",
});
