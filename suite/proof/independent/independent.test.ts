import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, expect, test } from "vitest";
import { runConformance } from "../../runner/run.ts";
import { DEFECTS, IDENTITIES, startIndependentServer, type Defect } from "./server.ts";

// One conformance run at a time: runConformance is not safe to run twice at once in one process.
// The whole run walks the interaction property too (a few hundred requests): 5 to 15 s, a minute or
// more on a busy machine; a defect's run of its one requirement, a few seconds.
const RUN_LIMIT_MS = 400_000;
const reportRoot = await mkdtemp(join(tmpdir(), "independent-proof-"));
afterAll(() => rm(reportRoot, { recursive: true, force: true }));

/** The whole suite against the conforming build; against a defect, only the requirement it breaks (--only), as the gate runs its mutants. */
async function conformanceOf(defect?: Defect, requirement?: string) {
  const server = await startIndependentServer(defect);
  try {
    const errors: string[] = [];
    // It has no test hook that ends a stream with an error event, so SSE-6 cannot be provoked:
    // the run leaves it out, as an operator of such a service would (else exit 3, not judged).
    const { exitCode, report } = await runConformance(
      {
        baseUrl: server.url,
        ...IDENTITIES,
        exclude: ["SSE-6"],
        ...(requirement === undefined ? {} : { only: [requirement] }),
        reportDir: join(reportRoot, defect ?? "conforming"),
      },
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
    const run = await conformanceOf(defect, requirement);
    expect(run.exitCode, `seed ${run.seed}; failed: ${run.failed.join(", ")}`).toBe(1);
    expect(run.failed, `seed ${run.seed}`).toContain(requirement);
  },
);
