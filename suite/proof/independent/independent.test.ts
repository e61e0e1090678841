import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, expect, test } from "vitest";
import { runConformance } from "../../runner/run.ts";
import { DEFECTS, IDENTITIES, startIndependentServer, type Defect } from "./server.ts";

// One conformance run at a time: runConformance is not safe to run twice at once in one process.
// A run walks the interaction property too (a few hundred requests): a minute or more on a busy machine.
// Alone a run takes 10 to 30 s; beside the proof gate's six lanes, on two cores, several minutes.
const RUN_LIMIT_MS = 400_000;
const reportRoot = await mkdtemp(join(tmpdir(), "independent-proof-"));
afterAll(() => rm(reportRoot, { recursive: true, force: true }));

async function conformanceOf(defect?: Defect) {
  const server = await startIndependentServer(defect);
  try {
    const errors: string[] = [];
    // It has no test hook that ends a stream with an error event, so SSE-6 cannot be provoked:
    // the run leaves it out, as an operator of such a service would (else exit 3, not judged).
    const { exitCode, report } = await runConformance(
      { baseUrl: server.url, ...IDENTITIES, exclude: ["SSE-6"], reportDir: join(reportRoot, defect ?? "conforming") },
      { progress: false, print: () => {}, printError: (line) => errors.push(line) },
    );
    const withStatus = (status: string) =>
      report?.requirements.filter((r) => r.status === status).map((r) => r.id) ?? [];
    return { exitCode, errors, failed: withStatus("fail"), warned: withStatus("warn"), seed: report?.seed };
  } finally {
    await server.close();
  }
}

test(
  "an independent conforming implementation with other choices in every gap passes",
  { timeout: RUN_LIMIT_MS },
  async () => {
    const run = await conformanceOf();
    expect(run.errors).toEqual([]);
    expect(run.failed, `seed ${run.seed}`).toEqual([]);
    // It follows every SHOULD too (whole-second RFC 3339 timestamps, 422 validation errors, …).
    expect(run.warned, `seed ${run.seed}`).toEqual([]);
    expect(run.exitCode).toBe(0);
  },
);

test.each(Object.entries(DEFECTS) as [Defect, string][])(
  "the independent implementation with defect %s fails %s",
  { timeout: RUN_LIMIT_MS },
  async (defect, requirement) => {
    const run = await conformanceOf(defect);
    expect(run.exitCode, `seed ${run.seed}; failed: ${run.failed.join(", ")}`).toBe(1);
    expect(run.failed, `seed ${run.seed}`).toContain(requirement);
  },
);
