/**
 * Near-miss keys: each is a key never sent, of the kind it was drawn as, and changed at its end
 * only, so that one request also tries a column that cuts keys short. fast-check prints the seed
 * of a failing run.
 */
import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { nearMiss, nearMissKinds, shapeKey } from "./inputs.ts";
import { KEY_SHAPES, NEAR_MISSES } from "./space.ts";

const keys = fc
  .tuple(fc.stringMatching(/^[a-z0-9]{4,12}-k-[0-9]{1,3}$/), fc.constantFrom(...KEY_SHAPES))
  .chain(([base, shape]) => shapeKey(base, shape));

describe("near-miss keys", () => {
  test("each differs from the earlier key and is of the kind it was drawn as", () => {
    fc.assert(
      fc.property(keys, fc.constantFrom(...NEAR_MISSES), (earlier, how) => {
        const key = nearMiss(earlier, how);
        expect(key).not.toBe(earlier);
        expect(nearMissKinds(earlier, key)).toContain(how);
      }),
    );
  });

  test("a flipped letter is a case change and a one-character change at once", () => {
    expect(nearMiss("abc-k-1_0123456789abcdef", "case-changed")).toBe("abc-k-1_0123456789abcdeF");
    expect(nearMissKinds("abc-k-1_0123456789abcdef", "abc-k-1_0123456789abcdeF")).toEqual([
      "case-changed",
      "one-character-changed",
    ]);
  });

  test("a long key and each of its near-misses share the first 40 characters: a column of 40 takes them for one", () => {
    fc.assert(
      fc.property(keys, fc.constantFrom(...NEAR_MISSES), (earlier, how) => {
        fc.pre(earlier.length > 43);
        expect(nearMiss(earlier, how).slice(0, 40)).toBe(earlier.slice(0, 40));
      }),
    );
  });

  test("keys that differ otherwise are no near-miss of each other", () => {
    expect(nearMissKinds("abc-k-1", "xyz-k-2")).toEqual([]);
    expect(nearMissKinds("abc-k-1", "abc-k-1")).toEqual([]);
  });
});
