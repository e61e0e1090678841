import { describe, expect, test } from "vitest";
import { checkTitle, familyCheckRuns, globToRegExp, isAnySelected, isSelected } from "./selection.ts";

describe("--only selection", () => {
  test.each([
    ["SSE-*", "SSE-10", true],
    ["SSE-*", "SSE-1", true],
    ["SSE-*", "IDEM-1", false],
    ["IDEM-1", "IDEM-1", true],
    ["IDEM-1", "IDEM-10", false],
    ["idem-?", "IDEM-7", true],
    ["*", "LIST-3", true],
  ])("%s matches %s: %s", (glob, id, expected) => {
    expect(globToRegExp(glob).test(id)).toBe(expected);
  });

  test("nothing given selects everything", () => {
    expect(isSelected("AUTH-1", [])).toBe(true);
  });

  test("a check runs when any of its requirements is selected", () => {
    expect(isAnySelected(["IDEM-1", "SSE-3"], ["SSE-*"])).toBe(true);
    expect(isAnySelected(["IDEM-1", "IDEM-2"], ["SSE-*", "LIST-1"])).toBe(false);
  });
});

describe("a family's checks (the interaction property's)", () => {
  const scenario = new Set(["SSE-1"]);
  const runs = (id: string, only: string[]) =>
    familyCheckRuns(id, "interactions", only, (other) => scenario.has(other));

  test("run when the family is selected, by name or by a glob, or when nothing is", () => {
    expect(runs("SSE-1", ["interactions"])).toBe(true);
    expect(runs("SSE-1", ["inter*"])).toBe(true);
    expect(runs("SSE-1", [])).toBe(true);
  });

  test("do not run for a requirement selected by ID that a scenario check judges; do for one only they judge", () => {
    expect(runs("SSE-1", ["SSE-*"])).toBe(false);
    expect(runs("IDEM-9", ["IDEM-9"])).toBe(true);
    expect(runs("IDEM-9", ["SSE-*"])).toBe(false);
  });
});

describe("titles", () => {
  test("a title names its requirements", () => {
    const title = checkTitle(["IDEM-1", "IDEM-2"], "a replay returns the earlier result");
    expect(title).toBe("[IDEM-1 IDEM-2] a replay returns the earlier result");
  });
});
