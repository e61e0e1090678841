import type { Behavior } from "../behavior.ts";

/** The one timestamp formatter: stored epoch milliseconds -> RFC 3339 UTC with milliseconds. */
export function formatTimestamp(epochMs: number): string {
  return new Date(epochMs).toISOString();
}

/** A resource's timestamp on the wire: RFC 3339, or epoch seconds under the epoch-timestamps variant. */
export function wireTimestamp(behavior: Pick<Behavior, "timestamps">, epochMs: number): string | number {
  return behavior.timestamps === "epoch-seconds" ? Math.floor(epochMs / 1000) : formatTimestamp(epochMs);
}
