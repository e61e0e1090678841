/**
 * The gate: the FULL conformance suite against the plain reference fake, the conforming
 * variants (all combinable ones together, each half of them together, each that combines with
 * nothing alone: targets.ts), and each mutant's own requirements against that mutant, three runs at a time (see
 * run-targets.ts for the order and the settle window). The suite must pass every legal fake and
 * fail every broken one on the requirement it breaks, and every interaction mutant by the interaction property alone
 * (a deep walk, and a second one with another seed when the first missed it). Failure messages name the offender ("mutant page-off-by-one survived: LIST-5
 * passed", "variant crlf failed: SSE-2 …", "MUST SCOPE-4 kills nothing"). See README.md.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, expect, test } from "vitest";
import { coverageProblems, judgeRun, killMatrix, mustCoverageProblems } from "./judge.ts";
import { runTargets, type TargetRun } from "./run-targets.ts";
import {
  interactionsAloneTargets,
  labelOf,
  mutantTargets,
  PLAIN_TARGET,
  proofTargets,
  SMOKE_TARGET,
  variantTargets,
} from "./targets.ts";

/**
 * Runs at a time. Much of a run is waiting (paced answers, Retry-After, settling windows, the
 * quiet windows of "nothing changed"), so three lanes keep a 2-core machine busy beside the two
 * other test files; more only add contention, which slows the property's walks and widens their
 * model searches (npm test: 1,021 s of CPU at six lanes and four workers, 953 s at four and
 * three, 782 s at three and two); the slowest runs start first (SLOWEST_RUNS in targets.ts).
 */
const LANES = 3;

/** Only stops a hung gate; the runs' own deadlines end them long before. */
const BACKSTOP_MS = 20 * 60_000;

const runs = new Map<string, TargetRun>();
let reportRoot: string | undefined;

afterAll(async () => {
  if (reportRoot !== undefined) await rm(reportRoot, { recursive: true, force: true });
});

beforeAll(async () => {
  reportRoot = await mkdtemp(join(tmpdir(), "proof-gate-"));
  const started = performance.now();
  for (const run of await runTargets(proofTargets(), { reportRoot, lanes: LANES, focusMutants: true }))
    runs.set(labelOf(run.target), run);
  const slowest = [...runs.values()]
    .sort((a, b) => b.durationMs - a.durationMs)
    .slice(0, 5)
    .map((r) => `${labelOf(r.target)} ${(r.durationMs / 1000).toFixed(1)} s`);
  const walkedTwice = [...runs.values()].filter((r) => (r.walks ?? 1) > 1).map((r) => labelOf(r.target));
  console.log(
    `proof gate: ${runs.size} conformance runs, ${LANES} at a time, in ${((performance.now() - started) / 1000).toFixed(1)} s; slowest: ${slowest.join(", ")}; a second walk for: ${walkedTwice.join(", ") || "none"}`,
  );
}, BACKSTOP_MS);

function problemsOf(label: string): string[] {
  const run = runs.get(label);
  return run === undefined ? [`${label} was not run`] : judgeRun(run);
}

test("the plain fake passes every requirement (no failure, warning, skip or inconclusive) within 100 creates", () => {
  expect(problemsOf(labelOf(PLAIN_TARGET))).toEqual([]);
});

test("the plain fake passes the smoke profile within 25 creates, judging a MUST of every family", () => {
  expect(problemsOf(labelOf(SMOKE_TARGET))).toEqual([]);
});

test.each(variantTargets().map((target) => target.name))(
  "variant %s passes every MUST, warned only where its variants chose to",
  (name) => {
    expect(problemsOf(`variant ${name}`)).toEqual([]);
  },
);

test.each(
  mutantTargets().flatMap((target) => (target.kind === "mutant" ? [[target.name, target.mutant.requirement]] : [])),
)("mutant %s is killed by %s", (name) => {
  expect(problemsOf(`mutant ${name}`)).toEqual([]);
});

test.each(
  interactionsAloneTargets().flatMap((target) =>
    target.kind === "mutant" ? [[target.name, target.mutant.requirement]] : [],
  ),
)("interaction mutant %s is killed by %s with --only interactions", (name) => {
  expect(problemsOf(`mutant ${name} (interactions alone)`)).toEqual([]);
});

test("every MUST requirement is killed by a mutant that breaks it", () => {
  expect(runs.size).toBe(proofTargets().length);
  expect(mustCoverageProblems(killMatrix([...runs.values()]))).toEqual([]);
});

test("every run's conformance.json lists every service requirement with at least one test", () => {
  expect(runs.size).toBe(proofTargets().length);
  expect([...runs.values()].flatMap(coverageProblems)).toEqual([]);
});
