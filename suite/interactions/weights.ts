/**
 * Weighted choices drawn from fast-check's stream, so a run is reproduced by its seed and the
 * draws shrink like any other value.
 */
import fc from "fast-check";

export interface Weighted<T> {
  readonly value: T;
  /** Relative chance, a positive number; zero or less is never chosen. */
  readonly weight: number;
}

export function pickWeighted<T>(g: fc.GeneratorValue, options: readonly Weighted<T>[]): T {
  const live = options.filter((o) => o.weight > 0);
  const first = live[0];
  if (first === undefined) throw new Error("pickWeighted: nothing to choose from");
  // Integer weights: fast-check draws integers, and a thousandth is finer than any weight here.
  const scaled = live.map((o) => Math.max(1, Math.round(o.weight * 1000)));
  const total = scaled.reduce((a, b) => a + b, 0);
  // Unbiased: fast-check leans integers towards their bounds, which would favour the first options.
  let at = g(() => fc.noBias(fc.integer({ min: 0, max: total - 1 })));
  for (const [i, option] of live.entries()) {
    at -= scaled[i] ?? 0;
    if (at < 0) return option.value;
  }
  return first.value;
}

export function pickOne<T>(g: fc.GeneratorValue, values: readonly T[]): T {
  return pickWeighted(
    g,
    values.map((value) => ({ value, weight: 1 })),
  );
}
