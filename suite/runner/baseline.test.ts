/**
 * The baseline's rules on synthetic outcomes: what a listed failure, a listed pass, an expired
 * entry, a listed skip or inconclusive and a listed unselected requirement do to the report and
 * the exit code, and what a bad file says.
 */

import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { applyBaseline, loadBaseline, parseBaseline, type Baseline, type BaselineEntry } from "./baseline.ts";
import { buildReport, exitCodeOf, type BuiltReport, type ReportContext, type TestOutcome } from "./build-report.ts";
import { reportContext } from "../test-support/runner-fixtures.ts";

const TODAY = "2026-03-10";

/** Expiry is judged against the run's start. */
const context = (overrides: Partial<ReportContext> = {}) =>
  reportContext({ startedAt: `${TODAY}T08:00:00.000Z`, ...overrides });

const INCONCLUSIVE =
  "the check did not finish within 300 ms (inconclusive: raise --check-timeout to give the target more room)";

/** "inconclusive": skipped with the check's note that the target never let it finish. */
function outcome(name: string, state: TestOutcome["state"] | "inconclusive"): TestOutcome {
  const errors = state === "failed" ? [{ name: "AssertionError", message: "expected has_more false" }] : [];
  // check() puts the IDs of the `[ID] …` title in the test's meta.
  const requirements = /^\[([^\]]+)\]/.exec(name)?.[1]?.split(" ");
  if (state === "inconclusive")
    return {
      name,
      requirements,
      file: "listing",
      state: "skipped",
      errors,
      note: `inconclusive: ${INCONCLUSIVE}`,
      durationMs: 1,
      check: { inconclusive: INCONCLUSIVE },
    };
  return {
    name,
    requirements,
    file: "listing",
    state,
    errors,
    note: state === "skipped" ? "budget: needs 9 creates, 0 left" : undefined,
    durationMs: 1,
  };
}

/** The requirements given (e.g. LIST-6, a SHOULD, and LIST-5, a MUST), selected with --only unless told otherwise. */
function built(
  states: Record<string, TestOutcome["state"] | "inconclusive">,
  overrides: Partial<ReportContext> = {},
): BuiltReport {
  const outcomes = Object.entries(states).map(([id, state]) => outcome(`[${id}] a check`, state));
  return buildReport(outcomes, context({ only: Object.keys(states), ...overrides }));
}

function entry(requirement: string, expires = "2027-01-31"): BaselineEntry {
  return { requirement, reason: "pagination past the end is 404 until v2", expires };
}

function baseline(...entries: BaselineEntry[]): Baseline {
  return { file: "baseline.json", entries: new Map(entries.map((e) => [e.requirement, e])) };
}

const find = (b: BuiltReport, id: string) => b.report.requirements.find((r) => r.id === id);

describe("applying a baseline", () => {
  test("the result still follows the exit code: an unexcused skipped MUST is incomplete, a run that judged nothing an error", () => {
    const incomplete = applyBaseline(
      built({ "LIST-5": "failed", "LIST-1": "skipped" }),
      baseline(entry("LIST-5")),
      TODAY,
    );
    expect([incomplete.report.result, exitCodeOf(incomplete)]).toEqual(["incomplete", 3]);
    const error = applyBaseline(built({ "LIST-1": "skipped" }), baseline(entry("LIST-5")), TODAY);
    expect([error.report.result, exitCodeOf(error)]).toEqual(["error", 2]);
  });

  test("a listed MUST failure is reported as a baselined fail and does not fail the run", () => {
    const before = built({ "LIST-5": "failed", "LIST-1": "passed" });
    expect(exitCodeOf(before)).toBe(1);
    const after = applyBaseline(before, baseline(entry("LIST-5")), TODAY);
    expect(find(after, "LIST-5")).toMatchObject({
      status: "fail",
      reason: "expected has_more false",
      baselined: true,
      baselineReason: "pagination past the end is 404 until v2",
      baselineExpires: "2027-01-31",
    });
    expect(after.report.result).toBe("pass");
    expect(after.report.baseline).toEqual({ file: "baseline.json", baselined: ["LIST-5"], problems: [] });
    expect(exitCodeOf(after)).toBe(0);
  });

  test("a failure that is not listed still fails the run beside a baselined one", () => {
    const after = applyBaseline(built({ "LIST-5": "failed", "LIST-1": "failed" }), baseline(entry("LIST-5")), TODAY);
    expect(find(after, "LIST-1")?.baselined).toBeUndefined();
    expect(after.report.result).toBe("fail");
    expect(exitCodeOf(after)).toBe(1);
  });

  test("a listed SHOULD warning stays a warning, marked baselined", () => {
    const after = applyBaseline(built({ "LIST-6": "failed" }), baseline(entry("LIST-6")), TODAY);
    expect(find(after, "LIST-6")).toMatchObject({ status: "warn", baselined: true });
    expect(exitCodeOf(after)).toBe(0);
  });

  test("a listed SHOULD that fails under --strict is excused like a MUST", () => {
    const before = built({ "LIST-6": "failed" }, { strict: true });
    expect(exitCodeOf(before)).toBe(1);
    const after = applyBaseline(before, baseline(entry("LIST-6")), TODAY);
    expect(find(after, "LIST-6")).toMatchObject({ status: "fail", baselined: true });
    expect(exitCodeOf(after)).toBe(0);
  });

  test("a listed requirement that passed fails the run: the entry is stale", () => {
    const after = applyBaseline(built({ "LIST-6": "passed" }), baseline(entry("LIST-6")), TODAY);
    expect(find(after, "LIST-6")).toMatchObject({ status: "pass" });
    expect(find(after, "LIST-6")?.baselined).toBeUndefined();
    expect(after.report.baseline?.problems).toEqual(["LIST-6 is listed in the baseline but passed: remove it"]);
    expect(after.report.result).toBe("fail");
    expect(exitCodeOf(after)).toBe(1);
  });

  test("an expired entry no longer excuses its failure and fails the run with its date", () => {
    const after = applyBaseline(built({ "LIST-5": "failed" }), baseline(entry("LIST-5", "2026-03-09")), TODAY);
    expect(find(after, "LIST-5")?.baselined).toBeUndefined();
    expect(after.report.baseline?.problems).toEqual([
      "LIST-5: the baseline entry expired on 2026-03-09 (pagination past the end is 404 until v2): fix the failure or renew the entry",
    ]);
    expect(exitCodeOf(after)).toBe(1);
  });

  test("an expired entry fails the run even when its requirement was skipped", () => {
    const after = applyBaseline(
      built({ "LIST-5": "skipped", "LIST-1": "passed" }),
      baseline(entry("LIST-5", "2025-12-31")),
      TODAY,
    );
    expect(after.report.baseline?.problems).toHaveLength(1);
    expect(exitCodeOf(after)).toBe(1);
  });

  test("an entry still holds on its expiry day", () => {
    const after = applyBaseline(built({ "LIST-5": "failed" }), baseline(entry("LIST-5", TODAY)), TODAY);
    expect(find(after, "LIST-5")?.baselined).toBe(true);
    expect(exitCodeOf(after)).toBe(0);
  });

  test.each([
    ["skipped", "budget: needs 9 creates, 0 left"],
    ["inconclusive", INCONCLUSIVE],
  ] as const)(
    "a listed MUST that was %s is excused: marked baselined, and the run is not incomplete",
    (state, reason) => {
      const before = built({ "LIST-5": state, "LIST-1": "passed" });
      expect(before.report.incomplete.map((r) => r.id)).toEqual(["LIST-5"]);
      expect(exitCodeOf(before)).toBe(3);
      const after = applyBaseline(before, baseline(entry("LIST-5")), TODAY);
      expect(find(after, "LIST-5")).toMatchObject({
        status: state === "skipped" ? "skip" : "inconclusive",
        reason,
        baselined: true,
      });
      expect(after.report.baseline).toEqual({ file: "baseline.json", baselined: ["LIST-5"], problems: [] });
      expect(after.report.incomplete).toEqual([]);
      expect(after.report.result).toBe("pass");
      expect(exitCodeOf(after)).toBe(0);
    },
  );

  test("a listed requirement that was not selected stays excluded by the user, and the run complete", () => {
    const unselected = applyBaseline(built({ "LIST-1": "passed" }), baseline(entry("LIST-5")), TODAY);
    expect(find(unselected, "LIST-5")).toMatchObject({
      status: "skip",
      reason: "not selected by --only",
      excluded: true,
    });
    expect(unselected.report.baseline?.problems).toEqual([]);
    expect(unselected.report.incomplete).toEqual([]);
    expect(exitCodeOf(unselected)).toBe(0);
  });

  test("a harness error still makes the run exit 2 whatever the baseline excuses", () => {
    const before = built({ "LIST-5": "failed" }, { harnessErrors: ["1 journal line(s) could not be read"] });
    expect(exitCodeOf(applyBaseline(before, baseline(entry("LIST-5")), TODAY))).toBe(2);
  });
});

describe("reading a baseline file", () => {
  const valid = {
    entries: [entry("LIST-6"), { requirement: "SSE-9", reason: "proxy buffers streams", expires: "2026-12-31" }],
  };

  test("a valid file gives its entries by requirement", () => {
    const result = parseBaseline("b.json", valid);
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect([...result.baseline.entries.keys()]).toEqual(["LIST-6", "SSE-9"]);
    expect(result.baseline.entries.get("SSE-9")?.reason).toBe("proxy buffers streams");
  });

  test.each([
    ["no entries array", {}, "entries"],
    ["a misspelt field", { entries: [{ requirement: "LIST-6", reasn: "x", expires: "2027-01-31" }] }, "reasn"],
    [
      "an empty reason",
      { entries: [{ requirement: "LIST-6", reason: "  ", expires: "2027-01-31" }] },
      "must say why the failure is accepted",
    ],
    [
      "a date in another format",
      { entries: [{ requirement: "LIST-6", reason: "x", expires: "31/01/2027" }] },
      "must be a date written YYYY-MM-DD",
    ],
    [
      "an impossible date",
      { entries: [{ requirement: "LIST-6", reason: "x", expires: "2027-02-30" }] },
      "must be a date written YYYY-MM-DD",
    ],
    [
      "a lower-case ID",
      { entries: [{ requirement: "list-6", reason: "x", expires: "2027-01-31" }] },
      "must be a requirement ID such as LIST-6",
    ],
  ])("a file with %s is refused with a message naming the problem", (_what, json, message) => {
    const result = parseBaseline("b.json", json);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.errors.join("\n")).toContain("--baseline b.json: not a baseline file");
    expect(result.errors.join("\n")).toContain(message);
  });

  test("an entry for a requirement the catalog does not have is refused", () => {
    const result = parseBaseline("b.json", { entries: [entry("LIST-99")] });
    expect(result).toEqual({ ok: false, errors: ["--baseline b.json: LIST-99 is not a requirement of the catalog"] });
  });

  test("a requirement listed twice is refused", () => {
    const result = parseBaseline("b.json", { entries: [entry("LIST-6"), entry("LIST-6", "2028-01-01")] });
    expect(result).toEqual({ ok: false, errors: ["--baseline b.json: LIST-6 is listed more than once"] });
  });

  describe("from disk", () => {
    let dir = "";
    beforeAll(async () => {
      dir = await mkdtemp(join(tmpdir(), "baseline-test-"));
    });
    afterAll(() => rm(dir, { recursive: true, force: true }));

    test("a valid file is read", async () => {
      await writeFile(join(dir, "ok.json"), JSON.stringify(valid));
      const result = await loadBaseline("ok.json", join(dir, "ok.json"));
      expect(result.ok).toBe(true);
    });

    test("a file that is not JSON is refused", async () => {
      await writeFile(join(dir, "bad.json"), "{ entries: [");
      const result = await loadBaseline("bad.json", join(dir, "bad.json"));
      expect(result.ok).toBe(false);
      if (!result.ok) expect(result.errors[0]).toMatch(/^--baseline bad\.json: not JSON: /);
    });

    test("a missing file is refused", async () => {
      const result = await loadBaseline("missing.json", join(dir, "missing.json"));
      expect(result).toEqual({ ok: false, errors: ["--baseline missing.json: cannot be read: no such file"] });
    });
  });
});
