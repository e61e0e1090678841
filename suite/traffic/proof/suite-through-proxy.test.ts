/**
 * The proxy agrees with the suite on the suite's own traffic: the conformance command line, as a
 * user runs it (the full profile, and the interaction property alone with --only interactions),
 * sent through the proxy with the proxy's default settings to each interaction mutant of the
 * proof. Every requirement the suite fails a mutant by that traffic can show, the proxy fails it
 * by too: never a pass, never undecided. Both read listings with the default --settle-ms, so the suite's settled
 * listings fall inside the proxy's window, and the proxy has to decide what it held back for lag
 * by a later listing, the conversation's delete or the end of the traffic (held-verdicts.ts).
 */
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, onTestFinished, test } from "vitest";
import { fakeTargetFlags } from "../../test-support/fake-target-flags.ts";
import { MUTANTS } from "../../../fake-server/variants/mutants.ts";
import type { ConformanceReport } from "../../report/report-types.ts";
import { runConformanceCli } from "../../resilience/run-cli.ts";
import { counterexampleShownByTraffic, shownByTraffic } from "../unobservable.ts";
import { brokenOf, inBatches, judgeThroughProxy, serviceFailures, verdictOf } from "./judge-through-proxy.ts";

/**
 * Interaction mutants whose bug the proxy cannot be held to show from the suite's traffic:
 * idempotency-per-replica picks its replica by the client's connection; behind the proxy every
 * request reaches the fake over the proxy's own pooled connections, so its bug takes another shape
 * from one run to the next (the suite and the proxy may name IDEM-2 or IDEM-5). Findings that
 * need another key's channel, a key nobody issued or the suite's knowledge of its own requests
 * are left out run by run (shownToTraffic).
 */
const NOT_SHOWN_TO_TRAFFIC = new Set(["idempotency-per-replica"]);

/**
 * Whether traffic can show the suite's failure of `id`: its requirement is one traffic shows, and
 * some failing test of it needs neither a caller's standing that traffic cannot know nor what only
 * the suite knew of its own requests (a counterexample's `who`s and `ownTrafficOnly`).
 */
function shownToTraffic(report: ConformanceReport, id: string): boolean {
  const failing = report.requirements.find((r) => r.id === id)?.tests.filter((t) => t.status === "fail") ?? [];
  return failing.some((t) => counterexampleShownByTraffic(id, t.counterexample));
}

const TARGETS = MUTANTS.filter(
  (m) => m.interaction && !NOT_SHOWN_TO_TRAFFIC.has(m.name) && shownByTraffic(m.requirement),
).map((m) => m.name);
const SELECTIONS = [
  { name: "full profile", args: [] },
  { name: "--only interactions", args: ["--only", "interactions"] },
] as const;

/** A suite run through the proxy: a full run waits out several listings that never settle. */
const RUN_LIMIT_MS = 180_000;
/** Three at once: the runs mostly wait (settling, the mutants' latency), and two cores carry three without slowing the timing-bound mutants. */
const AT_ONCE = 3;

async function suiteThroughProxy(mutant: string, selection: (typeof SELECTIONS)[number]) {
  const dir = await mkdtemp(join(tmpdir(), "suite-through-proxy-"));
  onTestFinished(() => rm(dir, { recursive: true, force: true }));
  let exit: number | null = null;
  let output = "";
  const run = await judgeThroughProxy({ mutant }, async (baseUrl) => {
    const cli = await runConformanceCli(
      [...fakeTargetFlags(baseUrl), "--report-dir", dir, ...selection.args],
      RUN_LIMIT_MS,
    );
    exit = cli.code;
    output = `${cli.stdout}\n${cli.stderr}`.slice(-2_000);
  });
  const report = JSON.parse(await readFile(join(dir, "conformance.json"), "utf8")) as ConformanceReport;
  const suite = Object.keys(brokenOf(report))
    .filter((id) => !id.startsWith("CLIENT-") && shownToTraffic(report, id))
    .sort();
  const proxy = serviceFailures(run);
  return {
    mutant,
    selection: selection.name,
    // The suite reached its verdicts (not a usage or harness error), so there is something to agree with.
    suiteRan: exit === 0 || exit === 1 || exit === 3 ? true : `exit ${exit}: ${output}`,
    // What the suite failed the mutant by and the proxy did not (passed, undecided or not observed).
    missedByProxy: suite
      .filter((id) => !proxy.includes(id))
      .map((id) => {
        // Why the judge left it undecided, and what the suite saw: the next disagreement can be read from the test's output.
        const failing = report.requirements.find((r) => r.id === id)?.tests.find((t) => t.status === "fail");
        return `${id}: ${verdictOf(run, id)}; the suite: ${failing?.name ?? ""}: ${(failing?.message ?? "").slice(0, 1_500)}`;
      }),
  };
}

test(`the suite through the proxy (default settings) in front of each interaction mutant: the proxy fails it by every requirement the suite fails it by`, async () => {
  const jobs = TARGETS.flatMap((mutant) => SELECTIONS.map((selection) => ({ mutant, selection })));
  const results = await inBatches(jobs, AT_ONCE, ({ mutant, selection }) => suiteThroughProxy(mutant, selection));
  expect(results).toEqual(
    jobs.map(({ mutant, selection }) => ({ mutant, selection: selection.name, suiteRan: true, missedByProxy: [] })),
  );
}, 900_000);
