/**
 * --rerun-failed FILE: which requirements of an earlier conformance.json are run again, and
 * what a file that is not one says.
 */

import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { incompleteSampleReport, sampleReport } from "../test-support/sample-report.ts";
import { loadRerun, rerunIds } from "./rerun.ts";
import { tempDir } from "../test-support/runner-fixtures.ts";

const report = (statuses: Record<string, string>) => ({
  requirements: Object.entries(statuses).map(([id, status]) => ({ id, status })),
});

describe("what is run again", () => {
  test("the requirements that failed, warned or were inconclusive, and skipped MUSTs, in the report's order", () => {
    const json = report({
      "AUTH-1": "pass",
      "AUTH-2": "warn",
      "RESP-1": "fail",
      "RESP-2": "skip",
      "SSE-1": "inconclusive",
      "LIST-1": "pass",
    });
    expect(rerunIds("c.json", json)).toEqual({ ok: true, ids: ["AUTH-2", "RESP-1", "RESP-2", "SSE-1"] });
  });

  test("a MUST skipped without the user excluding it is run again; one the user excluded or baselined, or a skipped SHOULD, is not", () => {
    const json = {
      requirements: [
        { id: "SCOPE-3", status: "skip" },
        { id: "SCOPE-1", status: "skip", excluded: true },
        { id: "DEL-2", status: "skip", baselined: true },
        { id: "AUTH-2", status: "skip" },
        { id: "LIST-1", status: "pass" },
      ],
    };
    expect(rerunIds("c.json", json)).toEqual({ ok: true, ids: ["SCOPE-3"] });
  });

  test("a requirement the interaction property failed brings the property along; one only a scenario check failed does not", () => {
    const json = {
      requirements: [
        {
          id: "SSE-8",
          status: "fail",
          tests: [
            { file: "streaming", status: "pass" },
            { file: "interactions", status: "fail" },
          ],
        },
        {
          id: "RESP-1",
          status: "fail",
          tests: [
            { file: "responses", status: "fail" },
            { file: "interactions", status: "pass" },
          ],
        },
      ],
    };
    expect(rerunIds("c.json", json)).toEqual({ ok: true, ids: ["SSE-8", "RESP-1", "interactions"] });
    expect(rerunIds("c.json", { requirements: [json.requirements[1]] })).toEqual({ ok: true, ids: ["RESP-1"] });
  });

  test("an incomplete run's report reruns its unjudged MUSTs", () => {
    expect(rerunIds("c.json", incompleteSampleReport())).toEqual({ ok: true, ids: ["LIST-1", "SCOPE-3"] });
  });

  test("a whole conformance.json is read, whatever else it holds", () => {
    // The sample has a failed IDEM-3 and SSE-3, a warned AUTH-2 and a skipped SCOPE-3.
    expect(rerunIds("c.json", sampleReport())).toEqual({ ok: true, ids: ["AUTH-2", "IDEM-3", "SSE-3", "SCOPE-3"] });
  });

  test("a report where everything passed or was skipped by the user's choice leaves nothing to run", () => {
    const json = {
      requirements: [
        { id: "AUTH-1", status: "pass" },
        { id: "RESP-2", status: "skip", excluded: true },
        { id: "AUTH-2", status: "skip" },
      ],
    };
    expect(rerunIds("c.json", json)).toEqual({ ok: true, ids: [] });
  });

  test.each([
    ["no requirements array", { result: "pass" }, "requirements"],
    ["a status this suite does not know", report({ "AUTH-1": "flaky" }), "status"],
    ["a requirement without an id", { requirements: [{ status: "fail" }] }, "id"],
  ])("a file with %s is refused, naming the flag and the problem", (_what, json, field) => {
    const result = rerunIds("c.json", json);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.error).toMatch(/^--rerun-failed c\.json: not a conformance\.json:/);
    expect(result.error).toContain(field);
  });

  test("a failed requirement the catalog does not have is refused", () => {
    expect(rerunIds("c.json", report({ "LIST-99": "fail", "AUTH-1": "pass" }))).toEqual({
      ok: false,
      error: "--rerun-failed c.json: names requirement(s) this suite's catalog does not have: LIST-99",
    });
  });
});

describe("from disk", () => {
  test("a conformance.json is read", async () => {
    const dir = await tempDir("rerun-test-");
    await writeFile(join(dir, "conformance.json"), JSON.stringify(report({ "DEL-2": "fail" })));
    expect(await loadRerun("conformance.json", join(dir, "conformance.json"))).toEqual({ ok: true, ids: ["DEL-2"] });
  });

  test("a file that is not JSON is refused", async () => {
    const dir = await tempDir("rerun-test-");
    await writeFile(join(dir, "bad.json"), "<html>");
    const result = await loadRerun("bad.json", join(dir, "bad.json"));
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.error).toMatch(/^--rerun-failed bad\.json: not JSON: /);
  });

  test("a missing file is refused", async () => {
    const dir = await tempDir("rerun-test-");
    expect(await loadRerun("missing.json", join(dir, "missing.json"))).toEqual({
      ok: false,
      error: "--rerun-failed missing.json: cannot be read: no such file",
    });
  });

  test("a directory is refused as unreadable", async () => {
    const dir = await tempDir("rerun-test-");
    const result = await loadRerun("reports", dir);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.error).toMatch(/^--rerun-failed reports: cannot be read: /);
  });
});
