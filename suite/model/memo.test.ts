import { expect, test } from "vitest";
import { TextNumbers } from "./memo.ts";

test("equal texts share a number, different texts never do, even after the table forgets", () => {
  const numbers = new TextNumbers(3);
  const a = numbers.of("a");
  expect(numbers.of("a")).toBe(a);
  const seen = new Map<number, string>([[a, "a"]]);
  for (const text of ["b", "c", "d", "e", "a", "f", "b"]) {
    const n = numbers.of(text);
    // A number once given stands for one text only.
    expect(seen.get(n) ?? text).toBe(text);
    seen.set(n, text);
  }
  // Past the limit the table forgot "a": a new number, never another text's.
  expect(numbers.of("a")).not.toBe(a);
});
