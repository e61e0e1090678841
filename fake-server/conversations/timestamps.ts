/**
 * The fake's timestamps: kept as epoch milliseconds, written as RFC 3339 UTC with milliseconds, or
 * in the format a timestamp variant chooses.
 */
import type { Behavior } from "../behavior/behavior.ts";
import { formatOffsetMicroseconds } from "./offset-timestamp.ts";

/** The one timestamp formatter: stored epoch milliseconds -> RFC 3339 UTC with milliseconds. */
export function formatTimestamp(epochMs: number): string {
  return new Date(epochMs).toISOString();
}

/**
 * A resource's timestamp on the wire: RFC 3339 UTC, epoch seconds (epoch-timestamps variant),
 * or RFC 3339 with microseconds and an offset (microsecond-timestamps variant).
 */
export function wireTimestamp(behavior: Pick<Behavior, "timestamps">, epochMs: number): string | number {
  switch (behavior.timestamps) {
    case "rfc3339":
      return formatTimestamp(epochMs);
    case "epoch-seconds":
      return Math.floor(epochMs / 1000);
    case "rfc3339-micro-offset":
      return formatOffsetMicroseconds(epochMs);
  }
}
