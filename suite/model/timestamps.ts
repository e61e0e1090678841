/**
 * Timestamps in any of the forms a service may choose (the spec leaves the format open):
 * RFC 3339 strings, epoch seconds, milliseconds or microseconds.
 */

export interface Instant {
  readonly ms: number;
  /** Whether the service wrote it to whole seconds only, so that two exchanges within a second may share it. */
  readonly wholeSeconds: boolean;
}

export function instantOf(value: unknown): Instant | undefined {
  if (typeof value === "number" && Number.isFinite(value)) {
    if (value < 1e11) return { ms: value * 1000, wholeSeconds: Number.isInteger(value) };
    if (value < 1e14) return { ms: value, wholeSeconds: value % 1000 === 0 };
    return { ms: value / 1000, wholeSeconds: value % 1e6 === 0 };
  }
  if (typeof value === "string") {
    const ms = Date.parse(value);
    if (Number.isNaN(ms)) return undefined;
    return { ms, wholeSeconds: !/:\d\d[.,]\d/.test(value) };
  }
  return undefined;
}
