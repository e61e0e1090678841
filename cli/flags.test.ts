/** The tests of cli/flags.ts. */
import { expect, test, vi } from "vitest";
import {
  flagHelp,
  flagsOrExit,
  flagValueOf,
  listFlag,
  parseFlags,
  readFlags,
  stringFlag,
  switchFlag,
  UnknownFlagError,
  UsageError,
  wholeNumberFlag,
  type FlagTable,
} from "./flags.ts";

const TABLE = {
  port: {
    name: "port",
    value: "N",
    env: "TOOL_PORT",
    help: "port to listen on",
    parser: wholeNumberFlag("port", 0, 65_535, 0),
  },
  host: {
    name: "host",
    value: "HOST",
    help: "address to listen on\n(default 127.0.0.1)",
    parser: stringFlag("127.0.0.1"),
  },
  keys: {
    name: "key",
    value: "TOKEN=AGENT[,AGENT...][@CHANNEL]",
    multiple: true,
    help: "a key (repeatable)",
    parser: listFlag(),
  },
  quiet: { name: "quiet", help: "say less", parser: switchFlag() },
} satisfies FlagTable;

test("flags parse strictly: an unknown flag or a positional is a UsageError", () => {
  expect(parseFlags(TABLE, ["--port", "4010"])).toEqual({
    ok: true,
    values: { port: 4010, host: "127.0.0.1", keys: undefined, quiet: false },
    positionals: [],
  });
  expect(() => parseFlags(TABLE, ["--prot", "4010"])).toThrow(UsageError);
  expect(() => parseFlags(TABLE, ["extra"])).toThrow(UsageError);
  expect(parseFlags(TABLE, ["extra"], { positionals: true })).toMatchObject({ ok: true, positionals: ["extra"] });
});

test("a flag wins over its environment variable; an empty variable counts as absent", () => {
  expect(readFlags(TABLE, ["--port", "1"], { env: { TOOL_PORT: "2" } }).raw.port).toBe("1");
  expect(readFlags(TABLE, [], { env: { TOOL_PORT: "2" } }).raw.port).toBe("2");
  expect(readFlags(TABLE, [], { env: { TOOL_PORT: "" } }).raw.port).toBeUndefined();
  expect(readFlags(TABLE, ["--key", "a", "--key", "b"]).raw.keys).toEqual(["a", "b"]);
});

test("values a row refuses are problems, in table order, beside the values that were fine", () => {
  expect(parseFlags(TABLE, ["--port", "x", "--host", "h"])).toEqual({
    ok: false,
    problems: ['--port must be a whole number from 0 to 65535, not "x"'],
    values: { host: "h", keys: undefined, quiet: false },
  });
});

test.each(["-1", "1.5", "1e3", "", " 7", "0x10", "65536"])("%j is not a whole number from 0 to 65535", (value) => {
  expect(() => wholeNumberFlag("port", 0, 65_535).parse(value)).toThrow(
    /--port must be a whole number from 0 to 65535/,
  );
});

test("a whole number in range is returned, and an absent flag gives the fallback or undefined", () => {
  expect(wholeNumberFlag("port", 0, 65_535).parse("0")).toBe(0);
  expect(wholeNumberFlag("port", 0, 65_535).parse("65535")).toBe(65_535);
  expect(wholeNumberFlag("port", 0, 65_535).parse(undefined)).toBeUndefined();
  expect(wholeNumberFlag("port", 0, 65_535, 80).parse(undefined)).toBe(80);
});

test("the help: flag and placeholder, help at its column, further lines under it, a long flag on its own line or not", () => {
  expect(flagHelp(TABLE, { helpAt: 14 })).toBe(
    [
      "  --port N    port to listen on",
      "  --host HOST address to listen on",
      "              (default 127.0.0.1)",
      "  --key TOKEN=AGENT[,AGENT...][@CHANNEL]",
      "              a key (repeatable)",
      "  --quiet     say less",
    ].join("\n"),
  );
  expect(flagHelp(TABLE, { helpAt: 14, longFlag: "same-line", showEnv: true }).split("\n")).toEqual([
    "  --port N    port to listen on [TOOL_PORT]",
    "  --host HOST address to listen on",
    "              (default 127.0.0.1)",
    "  --key TOKEN=AGENT[,AGENT...][@CHANNEL] a key (repeatable)",
    "  --quiet     say less",
  ]);
});

test("flagsOrExit gives the flags, 0 after printing the usage for --help, or 2 after a usage error with the usage", () => {
  const out = vi.spyOn(process.stdout, "write").mockImplementation(() => true);
  const err = vi.spyOn(process.stderr, "write").mockImplementation(() => true);
  try {
    expect(flagsOrExit("tool", "Usage: tool", () => ({ help: false, n: 1 }))).toEqual({ help: false, n: 1 });
    expect(flagsOrExit("tool", "Usage: tool", () => ({ help: true }))).toBe(0);
    expect(out).toHaveBeenCalledWith("Usage: tool\n");
    expect(
      flagsOrExit("tool", "Usage: tool", () => {
        throw new UsageError("--n must be a number");
      }),
    ).toBe(2);
    expect(err).toHaveBeenCalledWith("tool: --n must be a number\n\nUsage: tool\n");
    expect(() =>
      flagsOrExit("tool", "Usage: tool", () => {
        throw new Error("a bug");
      }),
    ).toThrow("a bug");
  } finally {
    out.mockRestore();
    err.mockRestore();
  }
});

test("an unknown flag is named with the closest known one, in one line; a positional says what the command takes", () => {
  expect(() => parseFlags(TABLE, ["--prot", "4010"])).toThrow(
    new UnknownFlagError("--prot", ["port", "host", "key", "quiet"]),
  );
  expect(() => parseFlags(TABLE, ["--prot=4010"])).toThrow("Unknown option --prot: did you mean --port?");
  expect(() => parseFlags(TABLE, ["--frobnicate"])).toThrow("Unknown option --frobnicate: --help lists the flags");
  expect(() => parseFlags(TABLE, ["stray"])).toThrow(
    'unexpected argument "stray": this command takes flags only (--help lists them)',
  );
});

test("flagsOrExit prints an unknown flag as one line, without the usage", () => {
  const err = vi.spyOn(process.stderr, "write").mockImplementation(() => true);
  try {
    expect(
      flagsOrExit("tool", "Usage: tool", () => parseFlags(TABLE, ["--hots", "x"]) as unknown as { help: boolean }),
    ).toBe(2);
    expect(err).toHaveBeenCalledTimes(1);
    expect(err).toHaveBeenCalledWith("tool: Unknown option --hots: did you mean --host?\n");
  } finally {
    err.mockRestore();
  }
});

test("flagValueOf reads one flag's text from arguments that may not parse", () => {
  expect(flagValueOf(["--bogus", "--report-dir", "out"], "report-dir")).toBe("out");
  expect(flagValueOf(["--report-dir=out2"], "report-dir")).toBe("out2");
  expect(flagValueOf(["--report-dir", "--strict"], "report-dir")).toBeUndefined();
  expect(flagValueOf([], "report-dir")).toBeUndefined();
});
