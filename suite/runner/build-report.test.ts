import { describe, expect, test } from "vitest";
import { REQUIREMENTS } from "../../requirements/catalog.ts";
import { buildReport, exitCodeOf, type TestOutcome } from "./build-report.ts";
import { KEY, reportContext as context } from "../test-support/runner-fixtures.ts";

/** check() titles a test `[IDS] name` and puts the IDs in its meta; these fixtures write them once, in the name. */
const idsIn = (name: string) => /^\[([^\]]+)\]/.exec(name)?.[1]?.split(" ");

function outcome(name: string, state: TestOutcome["state"], extra: Partial<TestOutcome> = {}): TestOutcome {
  return {
    name,
    requirements: idsIn(name),
    file: "family",
    state,
    errors: state === "failed" ? [{ name: "AssertionError", message: "expected 409, got 422" }] : [],
    durationMs: 1,
    ...extra,
  };
}

const statusOf = (outcomes: TestOutcome[], id: string, ctx = context()) =>
  buildReport(outcomes, ctx).report.requirements.find((r) => r.id === id);

describe("requirement status", () => {
  test("a MUST with a failing test fails, even if another test passed", () => {
    const r = statusOf([outcome("[IDEM-3] a", "passed"), outcome("[IDEM-3 IDEM-1] b", "failed")], "IDEM-3");
    expect(r?.status).toBe("fail");
    expect(r?.reason).toBe("expected 409, got 422");
    expect(r?.tests.map((t) => t.status)).toEqual(["pass", "fail"]);
  });

  test("a test naming several requirements counts for each of them", () => {
    const built = buildReport([outcome("[IDEM-1 IDEM-2] replay", "passed")], context());
    const ids = built.report.requirements.filter((r) => r.status === "pass").map((r) => r.id);
    expect(ids).toEqual(["IDEM-1", "IDEM-2"]);
  });

  test("a failing SHOULD warns, and fails under --strict", () => {
    expect(statusOf([outcome("[AUTH-2] 401", "failed")], "AUTH-2")?.status).toBe("warn");
    expect(statusOf([outcome("[AUTH-2] 401", "failed")], "AUTH-2", context({ strict: true }))?.status).toBe("fail");
  });

  test("passes when at least one test passed and none failed; skipped siblings do not matter", () => {
    expect(
      statusOf(
        [
          outcome("[LIST-1] a", "passed"),
          outcome("[LIST-1] b", "skipped", { note: "budget: needs 51 creates, 3 left" }),
        ],
        "LIST-1",
      )?.status,
    ).toBe("pass");
  });

  test("skips with every distinct reason when all its tests were skipped", () => {
    const r = statusOf(
      [
        outcome("[SCOPE-3] a", "skipped", { note: "needs --other-api-key" }),
        outcome("[SCOPE-3] b", "skipped", { note: "needs --other-api-key" }),
        outcome("[SCOPE-3] c", "skipped", { note: "budget: needs 4 creates, 0 left" }),
      ],
      "SCOPE-3",
    );
    expect(r?.status).toBe("skip");
    expect(r?.reason).toBe("needs --other-api-key; budget: needs 4 creates, 0 left");
  });

  test("skips when no test covers it", () => {
    const r = statusOf([], "DEL-2");
    expect(r).toMatchObject({ status: "skip", reason: "no check covers this requirement" });
  });

  test("a requirement selected by ID counts its scenario checks, not the interaction property's test, unless the property is its only check", () => {
    const outcomes = [
      outcome("[SSE-1] scenario", "passed", { file: "streaming" }),
      outcome("[SSE-1] property", "skipped", { file: "interactions" }),
      outcome("[IDEM-9] property", "passed", { file: "interactions" }),
    ];
    const built = buildReport(outcomes, context({ only: ["SSE-1", "IDEM-9"] }));
    expect(built.report.requirements.find((r) => r.id === "SSE-1")?.tests.map((t) => t.file)).toEqual(["streaming"]);
    expect(built.report.requirements.find((r) => r.id === "IDEM-9")).toMatchObject({
      status: "pass",
      tests: [{ file: "interactions" }],
    });
    expect(built.report.counts.tests).toBe(2);
    const family = buildReport(outcomes, context({ only: ["SSE-1", "interactions"] }));
    expect(family.report.requirements.find((r) => r.id === "SSE-1")?.tests.map((t) => t.file)).toEqual([
      "streaming",
      "interactions",
    ]);
  });

  test("requirements outside --only are not selected, never passed or skipped for another reason", () => {
    const built = buildReport(
      [outcome("[SSE-1] a", "passed"), outcome("[IDEM-1] b", "skipped")],
      context({ only: ["SSE-*"] }),
    );
    const idem = built.report.requirements.find((r) => r.id === "IDEM-1");
    expect(idem).toMatchObject({ status: "skip", reason: "not selected by --only", tests: [] });
    expect(built.report.requirements.find((r) => r.id === "SSE-1")?.status).toBe("pass");
    expect(built.report.counts.tests).toBe(1);
  });

  test("an inconclusive test makes its requirement inconclusive, even beside a passing one, and counts as such", () => {
    const built = buildReport(
      [
        outcome("[LIST-1] a", "passed"),
        outcome("[LIST-1] b", "skipped", {
          note: "inconclusive: …",
          check: { inconclusive: "the check did not finish within 300 ms (raise --check-timeout)" },
        }),
      ],
      context(),
    );
    const r = built.report.requirements.find((x) => x.id === "LIST-1");
    expect(r).toMatchObject({
      status: "inconclusive",
      reason: "the check did not finish within 300 ms (raise --check-timeout)",
    });
    expect(r?.tests.map((t) => t.status)).toEqual(["pass", "inconclusive"]);
    expect(built.report.counts.inconclusive).toBe(1);
  });

  test("--exclude and the smoke profile are the user's choice: excluded skips, never incomplete", () => {
    const built = buildReport(
      [
        outcome("[RESP-1] a", "passed"),
        outcome("[DEL-2] b", "passed"),
        outcome("[SCOPE-3] c", "skipped", {
          note: "not in the smoke profile",
          check: { excluded: "not in the smoke profile" },
        }),
      ],
      context({ only: ["RESP-1", "DEL-*", "SCOPE-3"], exclude: ["DEL-*"] }),
    );
    const find = (id: string) => built.report.requirements.find((r) => r.id === id);
    expect(find("DEL-2")).toMatchObject({ status: "skip", reason: "excluded by --exclude", excluded: true, tests: [] });
    expect(find("SCOPE-3")).toMatchObject({ status: "skip", reason: "not in the smoke profile", excluded: true });
    expect(built.report.incomplete).toEqual([]);
    expect(exitCodeOf(built)).toBe(0);
  });

  test("every service requirement of the catalog appears once, in catalog order", () => {
    const ids = buildReport([], context()).report.requirements.map((r) => r.id);
    expect(ids).toEqual(REQUIREMENTS.filter((r) => r.family !== "client").map((r) => r.id));
  });
});

describe("harness failures are not verdicts", () => {
  test("a test that failed with a HarnessError judges nothing and is listed as a harness error", () => {
    const built = buildReport(
      [
        outcome("[RESP-1] a", "failed", {
          errors: [{ name: "HarnessError", message: "cannot reach http://x: ECONNREFUSED" }],
        }),
      ],
      context(),
    );
    const r = built.report.requirements.find((x) => x.id === "RESP-1");
    expect(r?.status).toBe("skip");
    expect(r?.tests[0]?.message).toContain("harness error");
    expect(built.report.harnessErrors).toHaveLength(1);
    expect(built.report.result).toBe("error");
    expect(exitCodeOf(built)).toBe(2);
  });

  test("a test whose meta names no requirement or an unknown ID is a harness error", () => {
    const built = buildReport(
      [outcome("no prefix", "passed"), outcome("[NOPE-1] x", "passed"), outcome("[RESP-1] ok", "passed")],
      context(),
    );
    expect(built.report.harnessErrors).toHaveLength(2);
    expect(exitCodeOf(built)).toBe(2);
  });

  test("a test counts for the requirements of its meta, whatever its title says", () => {
    const built = buildReport([outcome("[RESP-1] a", "failed", { requirements: ["AUTH-2"] })], context());
    expect(built.report.requirements.find((r) => r.id === "AUTH-2")?.status).toBe("warn");
    expect(built.report.requirements.find((r) => r.id === "RESP-1")?.tests).toEqual([]);
  });

  test("an interrupted test is a skip, not a pass", () => {
    expect(statusOf([outcome("[DEL-1] a", "pending")], "DEL-1")?.status).toBe("skip");
  });
});

describe("exit code", () => {
  test("0 when every selected MUST passed, even with warnings", () => {
    const built = buildReport(
      [outcome("[RESP-1] a", "passed"), outcome("[AUTH-2] b", "failed")],
      context({ only: ["RESP-1", "AUTH-2"] }),
    );
    expect(built.report.incomplete).toEqual([]);
    expect(exitCodeOf(built)).toBe(0);
  });

  test("3 when nothing failed but a MUST was skipped, inconclusive or left without a check, each named with why", () => {
    const built = buildReport(
      [
        outcome("[RESP-1] a", "passed"),
        outcome("[SCOPE-3] b", "skipped", { note: "needs --other-api-key" }),
        outcome("[LIST-1] c", "skipped", {
          note: "inconclusive: …",
          check: { inconclusive: "no answer within 10 ms (raise --request-timeout)" },
        }),
      ],
      context({ only: ["RESP-1", "SCOPE-3", "LIST-1", "DEL-2"] }),
    );
    expect(built.report.result).toBe("incomplete");
    expect(built.report.incomplete).toEqual([
      { id: "LIST-1", status: "inconclusive", reason: "no answer within 10 ms (raise --request-timeout)" },
      { id: "DEL-2", status: "skip", reason: "no check covers this requirement" },
      { id: "SCOPE-3", status: "skip", reason: "needs --other-api-key" },
    ]);
    expect(exitCodeOf(built)).toBe(3);
  });

  test("a failure outranks an incomplete run: 1", () => {
    expect(exitCodeOf(buildReport([outcome("[RESP-1] a", "failed")], context({ only: ["RESP-1", "DEL-2"] })))).toBe(1);
  });

  test("a skipped SHOULD does not make the run incomplete", () => {
    const built = buildReport(
      [outcome("[RESP-1] a", "passed"), outcome("[AUTH-2] b", "skipped", { note: "budget" })],
      context({ only: ["RESP-1", "AUTH-2"] }),
    );
    expect(built.report.incomplete).toEqual([]);
    expect(exitCodeOf(built)).toBe(0);
  });

  test("1 when a MUST failed, or a SHOULD under --strict", () => {
    expect(exitCodeOf(buildReport([outcome("[RESP-1] a", "failed")], context()))).toBe(1);
    expect(
      exitCodeOf(
        buildReport([outcome("[RESP-1] a", "passed"), outcome("[AUTH-2] b", "failed")], context({ strict: true })),
      ),
    ).toBe(1);
  });

  test("2 when no test was executed", () => {
    expect(exitCodeOf(buildReport([outcome("[RESP-1] a", "skipped", { note: "budget" })], context()))).toBe(2);
    expect(exitCodeOf(buildReport([], context()))).toBe(2);
  });

  test("the result follows the exit code: pass 0, fail 1, error 2, incomplete 3", () => {
    const runs = [
      buildReport([outcome("[RESP-1] a", "passed")], context({ only: ["RESP-1"] })),
      buildReport([outcome("[RESP-1] a", "failed")], context({ only: ["RESP-1", "DEL-2"] })),
      buildReport([outcome("[RESP-1] a", "skipped", { note: "budget" })], context()),
      buildReport([outcome("[RESP-1] a", "passed")], context({ only: ["RESP-1", "DEL-2"] })),
    ];
    expect(runs.map((built) => [built.report.result, exitCodeOf(built)])).toEqual([
      ["pass", 0],
      ["fail", 1],
      ["error", 2],
      ["incomplete", 3],
    ]);
  });

  test("2 when the harness reported an error outside the tests", () => {
    expect(
      exitCodeOf(buildReport([outcome("[RESP-1] a", "passed")], context({ harnessErrors: ["module failed to load"] }))),
    ).toBe(2);
  });
});

describe("the report", () => {
  test("carries counts, budget, cleanup and run identifiers", () => {
    const { report } = buildReport(
      [outcome("[RESP-1] a", "passed"), outcome("[RESP-4] b", "failed"), outcome("[AUTH-2] c", "failed")],
      context(),
    );
    expect(report).toMatchObject({
      target: "http://127.0.0.1:1 (agent a)",
      result: "fail",
      strict: false,
      runId: "run1",
      seed: 7,
      durationMs: 12,
      creates: { budget: 150, spent: 3 },
      cleanup: { deleted: 2, failed: [] },
    });
    expect(report.counts).toMatchObject({ pass: 1, fail: 1, warn: 1, tests: 3 });
    const { pass, fail, warn, skip, inconclusive } = report.counts;
    expect(pass + fail + warn + skip + inconclusive).toBe(report.requirements.length);
  });

  test("a failing test keeps its evidence, scrubbed of keys", () => {
    const { report } = buildReport(
      [
        outcome("[RESP-1] a", "failed", {
          errors: [{ message: `server said ${KEY}` }],
          evidence: {
            transcripts: [
              {
                request: { method: "POST", url: "http://x/v1", headers: {} },
                response: { status: 500, headers: {}, body: KEY },
                durationMs: 3,
              },
            ],
            timelines: [[{ at: 1, event: "error", data: KEY }]],
          },
        }),
      ],
      context(),
    );
    const test0 = report.requirements.find((r) => r.id === "RESP-1")?.tests[0];
    expect(test0?.transcripts).toHaveLength(1);
    expect(test0?.timelines).toHaveLength(1);
    expect(JSON.stringify(report)).not.toContain(KEY);
  });
});
