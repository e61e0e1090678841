import fc from "fast-check";
import { expect, test } from "vitest";
import { criticalPath, type Span } from "./critical-path.ts";

test("sequential requests add up and overlapping ones count once, the longer one", () => {
  expect(criticalPath([])).toEqual({ ms: 0, requests: 0 });
  expect(
    criticalPath([
      { start: 0, end: 10 },
      { start: 10, end: 15 },
      { start: 20, end: 30 },
    ]),
  ).toEqual({ ms: 25, requests: 3 });
  // Two in parallel, then one after both: the slower branch is on the path.
  expect(
    criticalPath([
      { start: 0, end: 10 },
      { start: 1, end: 4 },
      { start: 12, end: 14 },
    ]),
  ).toEqual({ ms: 12, requests: 2 });
  // A long request overlapping a chain of short ones: the chain wins when it is longer.
  expect(
    criticalPath([
      { start: 0, end: 8 },
      { start: 0, end: 4 },
      { start: 5, end: 10 },
    ]),
  ).toEqual({ ms: 9, requests: 2 });
});

test("the path is never longer than the wall time nor shorter than the longest request (property)", () => {
  const span = fc
    .tuple(fc.integer({ min: 0, max: 1_000 }), fc.integer({ min: 0, max: 200 }))
    .map(([start, length]): Span => ({ start, end: start + length }));
  fc.assert(
    fc.property(fc.array(span, { maxLength: 40 }), (spans) => {
      const path = criticalPath(spans);
      const wall =
        spans.length === 0 ? 0 : Math.max(...spans.map((s) => s.end)) - Math.min(...spans.map((s) => s.start));
      const longest = Math.max(0, ...spans.map((s) => s.end - s.start));
      expect(path.ms).toBeLessThanOrEqual(wall);
      expect(path.ms).toBeGreaterThanOrEqual(longest);
    }),
    { seed: 20261123, numRuns: 300 },
  );
});
