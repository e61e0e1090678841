import fc from "fast-check";
import { expect, test } from "vitest";
import { DEFAULT_BEHAVIOR } from "../behavior/behavior.ts";
import { createAnswerEngine } from "./engine.ts";
import { splitIntoDeltas } from "./split.ts";

test("every answer splits into 3 to 8 deltas, cut at word starts, that concatenate to it exactly", () => {
  fc.assert(
    fc.property(fc.string({ maxLength: 120 }), fc.nat(1000), (message, seed) => {
      const { text } = createAnswerEngine(seed).answer(message);
      const deltas = splitIntoDeltas(text, seed, DEFAULT_BEHAVIOR);
      expect(deltas.join("")).toBe(text);
      expect(deltas.length).toBeGreaterThanOrEqual(3);
      expect(deltas.length).toBeLessThanOrEqual(8);
      for (const delta of deltas) expect(delta).not.toBe("");
      for (const delta of deltas.slice(0, -1)) expect(delta.endsWith(" ")).toBe(true);
    }),
    { numRuns: 100 },
  );
});

test("any text splits losslessly; with fewer words than deltas wanted, one word per delta", () => {
  fc.assert(
    fc.property(fc.string({ maxLength: 60 }), fc.nat(1000), (text, seed) => {
      const deltas = splitIntoDeltas(text, seed, DEFAULT_BEHAVIOR);
      expect(deltas.join("")).toBe(text);
      expect(deltas.length).toBeGreaterThanOrEqual(1);
      expect(deltas.length).toBeLessThanOrEqual(8);
    }),
    { numRuns: 100 },
  );
  expect(splitIntoDeltas("one two", 1, DEFAULT_BEHAVIOR)).toEqual(["one ", "two"]);
  expect(splitIntoDeltas("", 1, DEFAULT_BEHAVIOR)).toEqual([""]);
});

test("the split is the same every time for the same seed and text, so replays re-emit the same deltas", () => {
  const text = createAnswerEngine(3).answer("reminders").text;
  expect(splitIntoDeltas(text, 3, DEFAULT_BEHAVIOR)).toEqual(splitIntoDeltas(text, 3, DEFAULT_BEHAVIOR));
});
