/**
 * A proof lane: a child process that runs the conformance runs its parent sends, one after
 * another, in this process (the runner and vitest load once per lane instead of once per
 * run). One run at a time per process; the parent starts as many lanes as it wants runs in
 * parallel. Started by run-targets.ts with an IPC channel; exits when the channel closes.
 */
import { runConformance } from "../runner/run.ts";
import { LaneJob, type LaneResult } from "./lane-protocol.ts";

if (process.send === undefined) {
  process.stderr.write("proof lane: start me through suite/proof/run-targets.ts (an IPC channel is needed)\n");
  process.exit(2);
}

async function run(job: LaneJob): Promise<LaneResult> {
  const started = performance.now();
  const walks = job.walks ?? 1;
  for (let walk = 1; ; walk++) {
    const errors: string[] = [];
    const { exitCode, report } = await runConformance(
      {
        reportDir: job.reportDir,
        fakeOptions: job.fakeOptions,
        ...(job.profile === undefined ? {} : { profile: job.profile }),
        ...(job.maxCreates === undefined ? {} : { maxCreates: job.maxCreates }),
        ...(job.only === undefined ? {} : { only: job.only }),
        ...(job.runs === undefined ? {} : { runs: job.runs }),
        // Each walk its own seed: a fixed one would walk the same way again.
        ...(job.seed === undefined ? {} : { seed: job.seed + walk - 1 }),
        ...(job.settleMs === undefined ? {} : { settleMs: job.settleMs }),
      },
      { progress: false, print: () => {}, printError: (line) => errors.push(line) },
    );
    // A SHOULD is broken by a warning: that kills its mutant as a failure kills a MUST's.
    const killed =
      report?.requirements.some(
        (r) => (r.status === "fail" || r.status === "warn") && (job.killedBy ?? []).includes(r.id),
      ) ?? false;
    if (killed || walk >= walks || exitCode === 2)
      return { id: job.id, exitCode, errors, durationMs: performance.now() - started, walks: walk };
  }
}

process.on("message", (message: unknown) => {
  const job = LaneJob.parse(message);
  run(job).then(
    (result) => process.send?.(result),
    (error: unknown) => {
      // A runner bug, not a verdict: report it as a harness failure of this run.
      const text = error instanceof Error ? (error.stack ?? error.message) : String(error);
      process.send?.({
        id: job.id,
        exitCode: 2,
        errors: [`the lane's run threw: ${text}`],
        durationMs: 0,
      } satisfies LaneResult);
    },
  );
});
process.on("disconnect", () => process.exit(0));
