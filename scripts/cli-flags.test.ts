import { expect, test } from "vitest";
import { UsageError, parseFlagValues, wholeNumberFlag } from "./cli-flags.ts";

test("flags parse strictly: an unknown flag or a positional is a UsageError", () => {
  expect(parseFlagValues(["--port", "4010"], { port: { type: "string" } })).toEqual({ port: "4010" });
  expect(() => parseFlagValues(["--prot", "4010"], { port: { type: "string" } })).toThrow(UsageError);
  expect(() => parseFlagValues(["extra"], { port: { type: "string" } })).toThrow(UsageError);
});

test.each(["-1", "1.5", "1e3", "", " 7", "0x10", "65536"])("%j is not a whole number from 0 to 65535", (value) => {
  expect(() => wholeNumberFlag("port", value, 0, 65_535)).toThrow(/--port must be a whole number from 0 to 65535/);
});

test("a whole number in range is returned, and an absent flag stays undefined", () => {
  expect(wholeNumberFlag("port", "0", 0, 65_535)).toBe(0);
  expect(wholeNumberFlag("port", "65535", 0, 65_535)).toBe(65_535);
  expect(wholeNumberFlag("port", undefined, 0, 65_535)).toBeUndefined();
});
