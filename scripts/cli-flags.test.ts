import { expect, test, vi } from "vitest";
import { flagsOrExit, parseFlagValues, UsageError, wholeNumberFlag } from "./cli-flags.ts";

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

test("flagsOrExit gives the flags, 0 after printing the usage for --help, or 2 after a usage error with the usage", () => {
  const out = vi.spyOn(process.stdout, "write").mockImplementation(() => true);
  const err = vi.spyOn(process.stderr, "write").mockImplementation(() => true);
  try {
    expect(flagsOrExit("tool", "Usage: tool", () => ({ help: false, n: 1 }))).toEqual({ help: false, n: 1 });
    expect(flagsOrExit("tool", "Usage: tool", () => ({ help: true }))).toBe(0);
    expect(out).toHaveBeenCalledWith("Usage: tool\n");
    expect(flagsOrExit("tool", "Usage: tool", () => { throw new UsageError("--n must be a number"); })).toBe(2);
    expect(err).toHaveBeenCalledWith("tool: --n must be a number\n\nUsage: tool\n");
    expect(() => flagsOrExit("tool", "Usage: tool", () => { throw new Error("a bug"); })).toThrow("a bug");
  } finally {
    out.mockRestore();
    err.mockRestore();
  }
});
