import { expect, test } from "vitest";
import { parseSettings, SECTION_NAMES } from "./settings.ts";

test("no flags: every section, full size, reports/bench.json", () => {
  const parsed = parseSettings([]);
  if (parsed.ok !== true) throw new Error(`not parsed: ${JSON.stringify(parsed)}`);
  expect(parsed.settings).toMatchObject({ quick: false, only: [...SECTION_NAMES], out: "reports/bench.json" });
  expect(parsed.settings.streams).toMatchObject({ streams: 1_000, deltas: 20 });
  expect(parsed.settings.memory.messages).toBe(1_000_000);
  expect(parsed.settings.listing).toMatchObject({ smallMessages: 100, largeMessages: 100_000, pageSize: 50 });
});

test("--quick shrinks the run; --only (repeated or comma-separated) picks sections in the order given", () => {
  const parsed = parseSettings(["--quick", "--only", "memory,listing", "--only", "suite"]);
  if (parsed.ok !== true) throw new Error(`not parsed: ${JSON.stringify(parsed)}`);
  expect(parsed.settings.quick).toBe(true);
  expect(parsed.settings.only).toEqual(["memory", "listing", "suite"]);
  expect(parsed.settings.memory.messages).toBeLessThan(1_000_000);
  expect(parsed.settings.throughput.durationSeconds).toBeLessThan(10);
});

test("an unknown section or flag is refused with a message naming it", () => {
  expect(parseSettings(["--only", "speed"])).toEqual({
    ok: false,
    error: expect.stringContaining("--only speed: not a section"),
  });
  expect(parseSettings(["--fast"])).toMatchObject({ ok: false, error: expect.stringContaining("--fast") });
  expect(parseSettings(["--help"])).toEqual({ ok: "help" });
});
