/**
 * The small shapes the others build on: a UUID, and a timestamp at spec strength (any string or
 * number: a gap) and at the fake's (RFC 3339 UTC with milliseconds).
 */
import { z } from "zod";

/** A UUID in the canonical 8-4-4-4-12 hex form (any version; upper or lower case). */
export const Uuid = z.uuid();

/**
 * The spec leaves the timestamp format open, so a target may send RFC 3339 strings
 * or epoch numbers (seconds or milliseconds).
 */
export const SpecTimestamp = z.union([z.string().min(1), z.number().finite()]);

/** The fake's choice: RFC 3339, UTC, millisecond precision ("2026-01-02T03:04:05.678Z"). */
export const FakeTimestamp = z.iso.datetime({ precision: 3 });
