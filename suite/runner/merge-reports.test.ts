import { describe, expect, test } from "vitest";
import type { ConformanceReport } from "../report/report-types.ts";
import { applyBaseline, parseBaseline } from "./baseline.ts";
import { buildReport, type TestOutcome } from "./build-report.ts";
import { mergeJunit } from "./merge-junit.ts";
import { mergeReports, refusal, targetOf, type ShardInput } from "./merge-reports.ts";
import { shardPlan } from "./shards.ts";
import { reportContext } from "../test-support/runner-fixtures.ts";
import { sampleInteractionsSummary } from "../test-support/sample-interactions.ts";

const outcome = (
  ids: string[],
  file: string,
  state: TestOutcome["state"],
  extra: Partial<TestOutcome> = {},
): TestOutcome => ({
  name: `[${ids.join(" ")}] ${file} check`,
  requirements: ids,
  file,
  state,
  errors: state === "failed" ? [{ message: `${ids[0]} broke` }] : [],
  durationMs: 1,
  note: state === "skipped" ? "budget: needs 4 creates, 0 left" : undefined,
  ...extra,
});

/**
 * Shard `index` of `count` over DEL-* (shard 1 of 2 holds DEL-1, shard 2 DEL-2 and DEL-3), the
 * interaction property selected too (its tests count only where its family is).
 */
function shard(
  index: number,
  count: number,
  outcomes: TestOutcome[],
  extra: Partial<Parameters<typeof reportContext>[0]> = {},
): ConformanceReport {
  const context = reportContext({
    only: ["DEL-*", "interactions"],
    shard: shardPlan({ index, count }, ["DEL-*"], []),
    suite: { name: "agent-service-conformance", version: "0.1.0" },
    runId: `run${index}`,
    seed: 100 + index,
    ...extra,
  });
  return buildReport(outcomes, context).report;
}

const input = (report: ConformanceReport, dir = `shard-${report.shard?.index}`): ShardInput => ({ dir, report });

/** Every DEL check passes in its own shard, and the property passes DEL-1 and DEL-3 in both. */
function passingShards(): ConformanceReport[] {
  const property = [outcome(["DEL-1"], "interactions", "passed"), outcome(["DEL-3"], "interactions", "passed")];
  return [
    shard(
      1,
      2,
      [
        outcome(["DEL-1"], "delete", "passed"),
        outcome(["DEL-2"], "delete", "skipped"),
        outcome(["DEL-3"], "delete", "skipped"),
        ...property,
      ],
      {
        creates: { budget: 100, spent: 30 },
      },
    ),
    shard(
      2,
      2,
      [
        outcome(["DEL-1"], "delete", "skipped"),
        outcome(["DEL-2"], "delete", "passed"),
        outcome(["DEL-3"], "delete", "passed"),
        ...property,
      ],
      {
        creates: { budget: 100, spent: 20 },
      },
    ),
  ];
}

describe("refused", () => {
  test.each([
    [
      "a report of a run without --shard",
      (r: ConformanceReport[]) => [r[0], { ...r[1], shard: undefined }],
      /shard-2: its conformance.json records no shard/,
    ],
    [
      "shards of other counts",
      (r: ConformanceReport[]) => [r[0], { ...r[1], shard: { index: 2, count: 3 } }],
      /shards of different counts: shard-1 is shard 1\/2, shard-2 shard 2\/3/,
    ],
    [
      "shards of other targets",
      (r: ConformanceReport[]) => [r[0], { ...r[1], target: "https://other.example (agent a)" }],
      /shards of different targets: .*https:\/\/other\.example/,
    ],
    [
      "shards of other suites",
      (r: ConformanceReport[]) => [r[0], { ...r[1], suite: { name: "agent-service-conformance", version: "0.2.0" } }],
      /shards of different suites: .*0\.1\.0.*0\.2\.0/,
    ],
    ["a missing shard", (r: ConformanceReport[]) => [r[0]], /shard 2\/2 is missing \(given: 1\/2\)/],
    [
      "a shard given twice",
      (r: ConformanceReport[]) => [r[0], r[0], r[1]],
      /shard 1\/2 is given twice: shard-1, shard-2/,
    ],
  ])("%s, with the reason", (_, arrange, reason) => {
    const shards = arrange(passingShards()).map((r, i) => input(r as ConformanceReport, `shard-${i + 1}`));
    expect(refusal(shards)).toMatch(reason);
  });

  test("nothing, when they are the shards of one run; the embedded fake's port does not make another target", () => {
    const [a, b] = passingShards() as [ConformanceReport, ConformanceReport];
    const fake = (port: number) => `http://127.0.0.1:${port} (embedded fake) (agent agent-a)`;
    expect(refusal([input({ ...a, target: fake(4001) }), input({ ...b, target: fake(4002) })])).toBeUndefined();
    expect(targetOf({ target: fake(4001) })).toBe("the embedded fake (agent agent-a)");
  });
});

describe("the whole", () => {
  test("judges each requirement where it was judged, sums creates, and passes", () => {
    const merged = mergeReports(passingShards().map((r) => input(r)));
    expect(merged.result).toBe("pass");
    expect(merged.shard).toBeUndefined();
    const del = merged.requirements.filter((r) => r.id.startsWith("DEL-"));
    expect(del.map((r) => [r.id, r.status])).toEqual([
      ["DEL-1", "pass"],
      ["DEL-2", "pass"],
      ["DEL-3", "pass"],
    ]);
    // DEL-3: shard 2's own check and both shards' property.
    expect(del.find((r) => r.id === "DEL-3")?.tests.map((t) => t.file)).toEqual([
      "interactions",
      "delete",
      "interactions",
    ]);
    expect(merged.creates).toEqual({ budget: 200, spent: 50 });
    expect(merged.runId).toBe("run1,run2");
    expect(merged.incomplete).toEqual([]);
  });

  test("takes the worst verdict: a failure in one shard fails the whole", () => {
    const [a, b] = passingShards() as [ConformanceReport, ConformanceReport];
    const failing = shard(2, 2, [
      outcome(["DEL-2"], "delete", "passed"),
      outcome(["DEL-3"], "delete", "passed"),
      outcome(["DEL-1"], "interactions", "failed"),
    ]);
    const merged = mergeReports([input(a), input({ ...failing, target: b.target })]);
    expect(merged.requirements.find((r) => r.id === "DEL-1")).toMatchObject({ status: "fail", reason: "DEL-1 broke" });
    expect(merged.result).toBe("fail");
  });

  test("a MUST its own shard skipped but another shard's property judged is judged; one nobody judged makes the whole incomplete", () => {
    const budget = shard(2, 2, [
      outcome(["DEL-2"], "delete", "skipped"),
      outcome(["DEL-3"], "delete", "skipped"),
      outcome(["DEL-3"], "interactions", "skipped"),
      outcome(["DEL-1"], "interactions", "passed"),
    ]);
    const first = shard(1, 2, [outcome(["DEL-1"], "delete", "passed"), outcome(["DEL-3"], "interactions", "passed")]);
    expect(budget.result).toBe("incomplete");
    const merged = mergeReports([input(first), input(budget)]);
    expect(merged.requirements.find((r) => r.id === "DEL-3")?.status).toBe("pass");
    expect(merged.incomplete.map((r) => r.id)).toEqual(["DEL-2"]);
    expect(merged.result).toBe("incomplete");
  });

  test("coverage is the union and the property's counts are summed", () => {
    const [a, b] = passingShards() as [ConformanceReport, ConformanceReport];
    const one = sampleInteractionsSummary({ seeds: [101] });
    const other = sampleInteractionsSummary({
      seeds: [102],
      coverage: {
        ...one.coverage,
        transitions: { covered: 4, total: 5, missing: ["live/in flight/continue/plain/other key"] },
      },
    });
    const merged = mergeReports([input({ ...a, interactions: one }), input({ ...b, interactions: other })]);
    expect(merged.interactions).toMatchObject({ seeds: [101, 102], sequences: 6, operations: 824, creates: 48 });
    expect(merged.interactions?.coverage.transitions).toEqual({
      covered: 4,
      total: 5,
      missing: ["live/in flight/continue/plain/other key"],
    });
  });

  test("has no interactions object when no shard ran the property", () => {
    expect("interactions" in mergeReports(passingShards().map((r) => input(r)))).toBe(false);
  });

  test("a shard that could not run makes the whole an error, naming it", () => {
    const [a, b] = passingShards() as [ConformanceReport, ConformanceReport];
    const stopped: ConformanceReport = {
      ...b,
      result: "error",
      diagnosis: "the key was refused",
      requirements: [],
      harnessErrors: [],
    };
    const merged = mergeReports([input(a), input(stopped)]);
    expect(merged.result).toBe("error");
    expect(merged.harnessErrors).toEqual(["shard 2/2: the key was refused"]);
  });

  test("a baseline entry is stale only when the whole passed it", () => {
    const baseline = parseBaseline("b.json", {
      entries: [{ requirement: "DEL-1", reason: "known", expires: "2999-01-01" }],
    });
    if (!baseline.ok) throw new Error(baseline.errors.join("\n"));
    const withBaseline = (report: ConformanceReport) =>
      applyBaseline({ report, executed: 1 }, baseline.baseline, "2026-01-01").report;
    // DEL-1 fails in its own shard, and passes in the other's property.
    const own = withBaseline(shard(1, 2, [outcome(["DEL-1"], "delete", "failed")]));
    const other = withBaseline(
      shard(2, 2, [
        outcome(["DEL-2"], "delete", "passed"),
        outcome(["DEL-3"], "delete", "passed"),
        outcome(["DEL-1"], "interactions", "passed"),
      ]),
    );
    expect(other.baseline?.problems).toEqual(["DEL-1 is listed in the baseline but passed: remove it"]);
    const merged = mergeReports([input(own), input(other)]);
    expect(merged.baseline).toEqual({ file: "b.json", baselined: ["DEL-1"], problems: [] });
    expect(merged.result).toBe("pass");
  });
});

describe("junit.xml of the whole", () => {
  const junit = (cases: string) => `<?xml version="1.0" encoding="UTF-8" ?>
<testsuites name="conformance" tests="3" failures="0" errors="0" time="1">
    <testsuite name="suite/checks/delete.check.ts" timestamp="t" hostname="h" tests="3" failures="0" errors="0" skipped="1" time="1">
${cases}
    </testsuite>
</testsuites>
`;
  const testCase = (name: string, body = "") =>
    `        <testcase classname="suite/checks/delete.check.ts" name="${name}" time="0">${body}</testcase>`;

  test("keeps each check from the shard that judged it, a check nobody judged once, and counts again", () => {
    const [a, b] = passingShards() as [ConformanceReport, ConformanceReport];
    const xml = mergeJunit(
      [
        {
          label: "shard 1/2",
          report: a,
          xml: junit(
            [
              testCase("[DEL-1] delete check"),
              testCase("[DEL-2] delete check", "<skipped/>"),
              testCase("[AUTH-1] not selected", "<skipped/>"),
            ].join("\n"),
          ),
        },
        {
          label: "shard 2/2",
          report: b,
          xml: junit(
            [
              testCase("[DEL-1] delete check", "<skipped/>"),
              testCase("[DEL-2] delete check"),
              testCase("[AUTH-1] not selected", "<skipped/>"),
            ].join("\n"),
          ),
        },
      ],
      mergeReports([input(a), input(b)]),
    );
    expect(xml.match(/name="\[DEL-1\] delete check"/g)).toHaveLength(1);
    expect(xml.match(/name="\[DEL-2\] delete check"/g)).toHaveLength(1);
    expect(xml.match(/name="\[AUTH-1\] not selected"/g)).toHaveLength(1);
    expect(xml).toContain(
      '<testsuite name="shard 1/2: suite/checks/delete.check.ts" timestamp="t" hostname="h" tests="2" failures="0" errors="0" skipped="1" time="1">',
    );
    expect(xml).toContain(
      '<testsuite name="shard 2/2: suite/checks/delete.check.ts" timestamp="t" hostname="h" tests="1" failures="0" errors="0" skipped="0" time="1">',
    );
    expect(xml).toMatch(/<testsuites name="conformance" tests="3" failures="0" errors="0"/);
  });
});
