import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, onTestFinished, test } from "vitest";
import { judgeRun } from "./judge.ts";
import { INTERACTIONS_ALONE_WALKS, runTargets } from "./run-targets.ts";
import { MUTANTS } from "../../fake-server/variants/mutants.ts";
import { labelOf, proofTargets, SLOWEST_RUNS, startOrder, type ProofTarget } from "./targets.ts";

test("a target the runner cannot start comes back as exit 2 with the runner's reason, one result per target", async () => {
  const reportRoot = await mkdtemp(join(tmpdir(), "proof-run-targets-"));
  onTestFinished(() => rm(reportRoot, { recursive: true, force: true }));
  const targets: ProofTarget[] = [
    {
      kind: "variant",
      name: "no-such-variant",
      fakeOptions: { variants: ["no-such-variant"] },
      variants: ["no-such-variant"],
    },
    { kind: "variant", name: "not-a-list", fakeOptions: { variants: 42 }, variants: [] },
  ];
  const seen: string[] = [];
  const runs = await runTargets(targets, {
    reportRoot,
    lanes: 1,
    onRun: (run, done, total) => seen.push(`${run.target.name} ${done}/${total}`),
  });
  // An exit-2 run still writes its report, with result error and the diagnosis.
  expect(runs.map((run) => [run.target.name, run.exitCode, run.report?.result])).toEqual([
    ["no-such-variant", 2, "error"],
    ["not-a-list", 2, "error"],
  ]);
  expect(runs[0]?.report?.diagnosis).toContain('unknown variant "no-such-variant"');
  expect(runs[0]?.errors.join("\n")).toContain('unknown variant "no-such-variant"; known: created-201');
  expect(runs[1]?.errors.join("\n")).toContain("variants must be a list of variant names");
  expect(seen).toEqual(["no-such-variant 1/2", "not-a-list 2/2"]);
  const [first] = runs;
  expect(first && judgeRun(first)[0]).toMatch(
    /^variant no-such-variant could not be judged \(exit 2\): .*could not start the embedded fake/,
  );
});

test("the slowest runs start first, each named as a proof target, the others in their order", () => {
  const labels = proofTargets({ everyVariantAlone: true }).map(labelOf);
  expect(SLOWEST_RUNS.filter((label) => !labels.includes(label))).toEqual([]);
  const started = startOrder(proofTargets({ everyVariantAlone: true }).map((target) => ({ target }))).map(
    ({ target }) => labelOf(target),
  );
  expect(started.slice(0, SLOWEST_RUNS.length)).toEqual(SLOWEST_RUNS);
  expect(started.slice(SLOWEST_RUNS.length)).toEqual(labels.filter((label) => !SLOWEST_RUNS.includes(label)));
  // The gate's own runs: those of the slowest it has go first, in the same order.
  const gate = startOrder(proofTargets().map((target) => ({ target }))).map(({ target }) => labelOf(target));
  const gateSlowest = SLOWEST_RUNS.filter((label) => gate.includes(label));
  expect(gate.slice(0, gateSlowest.length)).toEqual(gateSlowest);
});

test("an interaction mutant the first deep walk misses gets a second walk with a seed of its own, and the verdict says so", async () => {
  const reportRoot = await mkdtemp(join(tmpdir(), "proof-run-targets-"));
  onTestFinished(() => rm(reportRoot, { recursive: true, force: true }));
  const mutant = MUTANTS.find((m) => m.name === "metadata-outside-fingerprint");
  if (mutant === undefined) throw new Error("no mutant metadata-outside-fingerprint");
  // The plain fake in the mutant's place: no walk can catch a bug it does not have.
  const target: ProofTarget = { kind: "mutant", name: mutant.name, fakeOptions: {}, mutant, interactionsAlone: true };
  const [run] = await runTargets([target], { reportRoot, lanes: 1, seed: 7 });
  expect(run?.walks).toBe(INTERACTIONS_ALONE_WALKS);
  expect(run?.report?.seed).toBe(7 + INTERACTIONS_ALONE_WALKS - 1);
  expect(run && judgeRun(run)).toEqual([
    `mutant ${mutant.name} (interactions alone) survived: IDEM-3 passed; 2 walks, the last with seed 8`,
  ]);
}, 240_000);
