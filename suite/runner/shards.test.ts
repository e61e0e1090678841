import { describe, expect, test } from "vitest";
import { SERVICE_REQUIREMENTS } from "../../requirements/catalog.ts";
import { buildReport, type TestOutcome } from "./build-report.ts";
import { parseConfig } from "./config.ts";
import { parseShard, shardable, shardPlan, shardSeed, splitShares } from "./shards.ts";
import { reportContext } from "../test-support/runner-fixtures.ts";

describe("--shard I/N", () => {
  test.for(["1/1", "2/4", "4/4", " 3 / 7 "])("%s is a shard", (text) => {
    expect(parseShard(text)).toBeDefined();
  });

  test.for(["0/3", "4/3", "1/0", "1", "a/b", "1/2/3", "-1/2", "1/1001"])(
    "%s is refused with one line naming the flag",
    (text) => {
      const parsed = parseConfig([`--shard=${text}`], {});
      expect(parsed.ok).toBe(false);
      if (parsed.ok) return;
      expect(parsed.errors).toHaveLength(1);
      expect(parsed.errors[0]).toMatch(
        /^--shard \(or CONFORMANCE_SHARD\): must be I\/N, .*1 ≤ I ≤ N \(e\.g\. 2\/4\), not /,
      );
      expect(parsed.errors[0]).not.toContain("\n");
    },
  );

  test("comes from the flag or the environment, and programmatic input takes { index, count }", () => {
    expect(parseConfig(["--shard", "2/3"], {})).toMatchObject({ ok: true, config: { shard: { index: 2, count: 3 } } });
    expect(parseConfig([], { CONFORMANCE_SHARD: "1/2" })).toMatchObject({
      ok: true,
      config: { shard: { index: 1, count: 2 } },
    });
  });
});

describe("shares", () => {
  const ids = SERVICE_REQUIREMENTS.map((r) => r.id);

  test.for([1, 2, 3, 4, 7, 60])(
    "%i shares are disjoint, cover every requirement in catalog order, and differ in size by one at most",
    (count) => {
      const shares = splitShares(ids, count);
      expect(shares).toHaveLength(count);
      expect(shares.flat()).toEqual(ids);
      const sizes = shares.map((s) => s.length);
      expect(Math.max(...sizes) - Math.min(...sizes)).toBeLessThanOrEqual(1);
    },
  );

  test("are of the selected requirements; naming the interactions family makes every one shardable", () => {
    expect(shardable(["DEL-*"], [])).toEqual(["DEL-1", "DEL-2", "DEL-3"]);
    expect(shardable(["DEL-*"], ["DEL-2"])).toEqual(["DEL-1", "DEL-3"]);
    expect(shardable(["interactions"], [])).toEqual(ids);
  });

  test("each shard's property has a seed of its own, from the base seed", () => {
    expect([1, 2, 3].map((index) => shardSeed(100, { index, count: 3 }))).toEqual([101, 102, 103]);
    expect(shardSeed(100, undefined)).toBe(100);
    expect(shardSeed(2 ** 31 - 1, { index: 1, count: 2 })).toBe(0);
  });
});

describe("a shard's report", () => {
  const outcome = (name: string, ids: string[], file: string, state: TestOutcome["state"]): TestOutcome => ({
    name,
    requirements: ids,
    file,
    state,
    errors: state === "failed" ? [{ message: "broken" }] : [],
    durationMs: 1,
    note: state === "skipped" ? "budget" : undefined,
  });
  // DEL-1 is shard 1's, DEL-2 and DEL-3 shard 2's.
  const plan = shardPlan({ index: 1, count: 2 }, ["DEL-*"], []);

  test("judges its own share, and another shard's requirement only by what the property showed", () => {
    const { report } = buildReport(
      [
        outcome("[DEL-1] scenario", ["DEL-1"], "delete", "passed"),
        outcome("[DEL-2] scenario", ["DEL-2"], "delete", "skipped"),
        outcome("[DEL-3] scenario", ["DEL-3"], "delete", "failed"),
        outcome("[DEL-3] property", ["DEL-3"], "interactions", "passed"),
        outcome("[DEL-2] property", ["DEL-2"], "interactions", "skipped"),
        // The property's tests count where its family is selected (selected by ID alone, a requirement counts only its scenario checks).
      ],
      reportContext({ only: ["DEL-*", "interactions"], shard: plan }),
    );
    expect(report.shard).toEqual({ index: 1, count: 2 });
    const byId = Object.fromEntries(report.requirements.map((r) => [r.id, r]));
    expect(byId["DEL-1"]).toMatchObject({ status: "pass" });
    // Another shard's scenario checks do not count here, even when they ran.
    expect(byId["DEL-3"]).toMatchObject({ status: "pass", tests: [{ name: "[DEL-3] property" }] });
    expect(byId["DEL-2"]).toMatchObject({ status: "skip", reason: "judged in shard 2/2", excluded: true, tests: [] });
    expect(report.incomplete).toEqual([]);
    expect(report.result).toBe("pass");
  });

  test("a shard with an empty share that ran nothing is not an error", () => {
    const { report } = buildReport(
      [outcome("[DEL-1] scenario", ["DEL-1"], "delete", "skipped")],
      reportContext({ only: ["DEL-1"], shard: shardPlan({ index: 1, count: 2 }, ["DEL-1"], []) }),
    );
    expect(report.result).toBe("pass");
    expect(report.requirements.find((r) => r.id === "DEL-1")).toMatchObject({
      status: "skip",
      reason: "judged in shard 2/2",
      excluded: true,
    });
  });
});
