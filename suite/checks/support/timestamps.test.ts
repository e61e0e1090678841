import { z } from "zod";
import { expect, test } from "vitest";
import { Rfc3339 } from "./timestamps.ts";

const message = (value: unknown) => {
  const parsed = Rfc3339.safeParse(value);
  return parsed.success ? "valid" : z.prettifyError(parsed.error);
};

test("a timestamp without a UTC offset is named valid ISO 8601 but not RFC 3339", () => {
  expect(message("2026-11-25T10:00:00")).toContain("valid ISO 8601 but not RFC 3339 (no UTC offset");
  expect(message("2026-11-25T10:00:00.123")).toContain("valid ISO 8601 but not RFC 3339");
  expect(message("2026-11-25T10:00:00")).not.toContain("Invalid ISO datetime");
});

test("RFC 3339 timestamps pass; anything else is said not to be one", () => {
  expect(message("2026-11-25T10:00:00Z")).toBe("valid");
  expect(message("2026-11-25T10:00:00.5+01:00")).toBe("valid");
  expect(message("yesterday")).toContain("not an RFC 3339 date-time");
  expect(message(1764064800)).toContain("not an RFC 3339 date-time");
});
