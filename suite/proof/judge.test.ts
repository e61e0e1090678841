import { expect, test } from "vitest";
import { mutantByName } from "../../fake-server/variants/mutants.ts";
import type { ConformanceReport, RequirementReport, RequirementStatus } from "../report/report-types.ts";
import { SERVICE_REQUIREMENTS } from "../../requirements/catalog.ts";
import { coverageProblems, judgeRun, killMatrix, mustCoverageProblems, mutationScore, proofProblems } from "./judge.ts";
import type { TargetRun } from "./run-targets.ts";
import { combinableVariants, VARIANTS } from "../../fake-server/variants/variants.ts";
import { mutantTargets, PLAIN_TARGET, VARIANT_HALVES, variantTargets, type ProofTarget } from "./targets.ts";

/** A report in which every service requirement passed one test, except the given statuses. */
function report(statuses: Record<string, RequirementStatus> = {}, spent = 90): ConformanceReport {
  const requirements: RequirementReport[] = SERVICE_REQUIREMENTS.map((r) => {
    const status = statuses[r.id] ?? "pass";
    return {
      id: r.id,
      level: r.level,
      family: r.family,
      summary: r.summary,
      spec: r.spec,
      status,
      ...(status === "pass" ? {} : { reason: `${r.id} went ${status}\nsecond line` }),
      tests: [
        {
          name: `[${r.id}] a check`,
          file: r.family,
          status: status === "warn" ? "fail" : status === "not_observed" ? "skip" : status,
          durationMs: 1,
        },
      ],
    };
  });
  return {
    target: "http://127.0.0.1:1 (embedded fake)",
    result: Object.values(statuses).includes("fail") ? "fail" : "pass",
    strict: false,
    runId: "run",
    seed: 7,
    startedAt: "2026-01-01T00:00:00.000Z",
    durationMs: 1,
    counts: { pass: 0, fail: 0, warn: 0, skip: 0, inconclusive: 0, tests: requirements.length },
    creates: { budget: 100, spent },
    cleanup: { deleted: 0, failed: [] },
    harnessErrors: [],
    incomplete: [],
    requirements,
  };
}

function run(target: ProofTarget, exitCode: 0 | 1 | 2 | 3, conformance: ConformanceReport | undefined): TargetRun {
  return { target, exitCode, report: conformance, errors: [], durationMs: 1, reportDir: "/nowhere" };
}

const mutantTarget = (name: string): ProofTarget => {
  const target = mutantTargets().find((t) => t.name === name);
  if (target === undefined) throw new Error(`no mutant ${name}`);
  return target;
};
const variant = (name: string): ProofTarget => ({
  kind: "variant",
  name,
  fakeOptions: { variants: [name] },
  variants: [name],
});

test("a mutant whose own requirement passed survived, and the message says so with the seed", () => {
  const problems = judgeRun(run(mutantTarget("page-off-by-one"), 1, report({ "LIST-3": "fail" })));
  expect(problems).toEqual(["mutant page-off-by-one survived: LIST-5 passed; the run failed LIST-3 instead (seed 7)"]);
});

test("a mutant whose own requirement failed is killed; a SHOULD mutant is killed by a warning", () => {
  expect(judgeRun(run(mutantTarget("page-off-by-one"), 1, report({ "LIST-5": "fail", "LIST-6": "warn" })))).toEqual([]);
  expect(judgeRun(run(mutantTarget("stream-buffered"), 0, report({ "SSE-9": "warn" })))).toEqual([]);
  const rows = killMatrix([
    run(mutantTarget("page-off-by-one"), 1, report({ "LIST-5": "fail" })),
    run(mutantTarget("stream-buffered"), 0, report({ "SSE-9": "warn" })),
    run(mutantTarget("deleted-continuable"), 1, report({ "DEL-1": "fail" })),
    run(mutantTarget("page-size-101"), 0, report()),
  ]);
  expect(rows.map((row) => row.verdict)).toEqual(["killed", "killed (warned)", "killed elsewhere", "survived"]);
  expect(mutationScore(rows)).toEqual({ total: 4, killed: 3, killedByOwnRequirement: 2 });
});

test("a skipped own requirement is a survival that names the skip reason", () => {
  const [problem] = judgeRun(run(mutantTarget("events-after-error"), 0, report({ "SSE-6": "skip" })));
  expect(problem).toBe("mutant events-after-error survived: SSE-6 was skipped (SSE-6 went skip) (seed 7)");
});

test("a variant that fails a MUST, or warns where it did not choose to, is named with the requirement and the reason", () => {
  expect(judgeRun(run(variant("crlf"), 1, report({ "SSE-2": "fail", "LIST-8": "warn" })))).toEqual([
    "variant crlf failed: SSE-2 SSE-2 went fail",
    "variant crlf warned unexpectedly: LIST-8 LIST-8 went warn",
    "variant crlf exited 1, not 0",
  ]);
  expect(judgeRun(run(variant("epoch-timestamps"), 0, report({ "LIST-8": "warn" })))).toEqual([]);
  expect(judgeRun(run(variant("listing-lag"), 3, report({ "RESP-2": "inconclusive", "LIST-11": "warn" })))).toEqual([
    "variant listing-lag was inconclusive: RESP-2 RESP-2 went inconclusive",
    "variant listing-lag exited 3, not 0",
  ]);
});

test("a run of several variants expects the warnings each chose, and no other", () => {
  const [elaborating, simplifying] = [VARIANT_HALVES.elaborating, VARIANT_HALVES.simplifying].map(
    (variants, i): ProofTarget => ({ kind: "variant", name: `half-${i}`, fakeOptions: { variants }, variants }),
  );
  if (elaborating === undefined || simplifying === undefined) throw new Error("two halves expected");
  expect(judgeRun(run(elaborating, 0, report({ "LIST-11": "warn" })))).toEqual([]);
  expect(judgeRun(run(elaborating, 0, report({ "LIST-8": "warn" })))).toEqual([
    "variant half-0 warned unexpectedly: LIST-8 LIST-8 went warn",
  ]);
  expect(judgeRun(run(simplifying, 0, report({ "LIST-8": "warn" })))).toEqual([]);
  const all = variantTargets().find((t) => t.name === "all");
  if (all === undefined) throw new Error("no target all");
  expect(judgeRun(run(all, 0, report({ "LIST-8": "warn", "LIST-11": "warn" })))).toEqual([]);
});

test("the gate's variant runs judge every variant: each combinable one in all and in exactly one half, the others alone", () => {
  const combinable = combinableVariants().map((v) => v.name);
  const halves = Object.values(VARIANT_HALVES);
  expect([...halves.flat()].sort()).toEqual([...combinable].sort());
  for (const half of halves) expect(half.length).toBeGreaterThan(1);
  const gate = variantTargets();
  const judged = new Set(gate.flatMap((t) => (t.kind === "variant" ? t.variants : [])));
  expect(VARIANTS.filter((v) => !judged.has(v.name)).map((v) => v.name)).toEqual([]);
  expect(gate.map((t) => t.name)).toEqual(expect.arrayContaining(["all", "simplifying", "elaborating"]));
  const everyAlone = variantTargets({ everyVariantAlone: true }).map((t) => t.name);
  expect(everyAlone).toEqual(expect.arrayContaining(VARIANTS.map((v) => v.name)));
});

test("the plain fake may neither fail, warn, skip nor be inconclusive, nor spend more than 100 creates", () => {
  expect(judgeRun(run(PLAIN_TARGET, 0, report()))).toEqual([]);
  expect(
    judgeRun(run(PLAIN_TARGET, 0, report({ "LIST-8": "warn", "SSE-6": "skip", "IDEM-5": "inconclusive" }, 101))),
  ).toEqual([
    "plain fake was inconclusive: IDEM-5 IDEM-5 went inconclusive",
    "plain fake skipped: SSE-6 SSE-6 went skip",
    "plain fake warned: LIST-8 LIST-8 went warn",
    "plain fake: the default run spent 101 creates of a budget of 100; the ceiling is 100",
  ]);
});

test("a run without a report, or one the harness could not judge, is a problem", () => {
  const broken = { ...run(variant("heartbeats"), 2, undefined), errors: ["could not start the embedded fake"] };
  expect(judgeRun(broken)).toEqual([
    "variant heartbeats produced no conformance.json (exit 2): could not start the embedded fake",
  ]);
  expect(killMatrix([run(mutantTarget("page-off-by-one"), 2, undefined)])[0]?.verdict).toBe("no verdict");
});

test("a requirement missing from a report, or listed without a test, is named", () => {
  const conformance = report();
  conformance.requirements = conformance.requirements
    .filter((r) => r.id !== "SCOPE-4")
    .map((r) => (r.id === "ERR-1" ? { ...r, tests: [] } : r));
  expect(coverageProblems(run(PLAIN_TARGET, 0, conformance))).toEqual([
    "plain fake: conformance.json does not list SCOPE-4",
    "plain fake: conformance.json has no test for ERR-1",
  ]);
});

test("a MUST requirement without a killing mutant of its own kills nothing", () => {
  const rows = killMatrix([
    run(mutantTarget("continue-ignores-scope"), 0, report()),
    run(mutantTarget("page-off-by-one"), 1, report({ "LIST-5": "fail" })),
  ]);
  const problems = mustCoverageProblems(rows);
  expect(problems).toContain(
    "MUST SCOPE-4 kills nothing: its mutants (continue-ignores-scope: survived) were not killed by it",
  );
  expect(problems).toContain("MUST AUTH-1 kills nothing: no mutant breaks it");
  expect(problems.some((p) => p.startsWith("MUST LIST-5"))).toBe(false);
});

test("every MUST service requirement has a mutant in the catalog, so a complete proof can pass", () => {
  const runs = mutantTargets().map((target) => {
    const own = target.kind === "mutant" ? target.mutant : undefined;
    const level = SERVICE_REQUIREMENTS.find((r) => r.id === own?.requirement)?.level;
    return run(
      target,
      level === "MUST" ? 1 : 0,
      report(own ? { [own.requirement]: level === "MUST" ? "fail" : "warn" } : {}),
    );
  });
  expect(proofProblems([run(PLAIN_TARGET, 0, report()), ...runs])).toEqual([]);
  expect(mutantByName("page-off-by-one")?.requirement).toBe("LIST-5");
});
