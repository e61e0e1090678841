import { BaseSequencer, type TestSpecification } from "vitest/node";
import { defineConfig } from "vitest/config";

/**
 * The files that take longest, longest first (measured 2026-11-28, two workers): started before
 * the rest, so that none of them is still running alone at the end. Most of their time is
 * waiting (the gate's and the command lines' conformance runs against paced, lagging and
 * rate-limited targets), not CPU. Prism's file comes second and the package's well after it:
 * both take the exclusive slot, and a worker that waits for it does nothing. vitest orders the
 * other files by the durations it cached, or by size.
 */
const LONGEST_FILES = [
  "suite/proof/gate.test.ts",
  "schemas/openapi/prism.test.ts",
  "suite/resilience/hostile-targets.test.ts",
  "suite/proof/independent/independent.test.ts",
  "scripts/source-checks.test.ts",
  "suite/runner/interrupt.test.ts",
  "scripts/package/pack.test.ts",
  "scripts/ci/snippets.test.ts",
  "suite/interactions/property.fake.test.ts",
  "suite/traffic/cli.test.ts",
  "suite/traffic/proof/proxy-proof.test.ts",
  "suite/resilience/live-targets.test.ts",
  "suite/runner/documented-run.test.ts",
  "suite/runner/selection-cost.test.ts",
  "scripts/ci/action.test.ts",
  "suite/runner/cli.test.ts",
  "suite/resilience/live-plumbing.test.ts",
];

class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const rank = (file: TestSpecification) => {
      const index = LONGEST_FILES.findIndex((path) => file.moduleId.endsWith(`/${path}`));
      return index === -1 ? LONGEST_FILES.length : index;
    };
    // Array.prototype.sort is stable: the rest keep vitest's order.
    return (await super.sort(files)).sort((a, b) => rank(a) - rank(b));
  }
}

/**
 * Files that change what their process shares (a mocked module, fake timers, the environment,
 * a process warning handler) or count what it holds (open handles): each runs in a fresh
 * process. The others share a process with the files before them, which saves each one
 * starting Node and importing the schemas, the fake and the suite again.
 */
const OWN_PROCESS = [
  "suite/checks.test.ts",
  "suite/http/client-retries.test.ts",
  "suite/traffic/proxy/server.test.ts",
  "fake-server/resilience/aborted-streams.test.ts",
];

const INCLUDE = ["{cli,requirements,schemas,suite,fake-server,scripts,examples,test-support}/**/*.test.ts"];
/**
 * Proofs of the traffic judge through the proxy against the interaction mutants: in each run, what
 * the suite or the property found that traffic can show, the proxy's judge must find too. In the
 * last five runs (PERFORMANCE.md, twenty-second session) the property's passed 5, the suite's 3 (one
 * job of 50 left undecided for lag), side by side in about 125 s; they stay out of `npm test` until
 * both hold in every run and `npm test` has room.
 * Run them with VITEST_INCLUDE_UNRELIABLE=1 npx vitest run FILE.
 */
const NOT_YET_RELIABLE = [
  "suite/traffic/proof/interactions-through-proxy.test.ts",
  "suite/traffic/proof/suite-through-proxy.test.ts",
];

const EXCLUDE = [
  "**/node_modules/**",
  "dist/**",
  ...(process.env.VITEST_INCLUDE_UNRELIABLE === "1" ? [] : NOT_YET_RELIABLE),
];

// The project's own tests: unit and property tests beside the code, and the gate that
// runs the conformance suite against the fake. The conformance checks themselves
// (suite/checks/*.check.ts) only run through the conformance runner.
export default defineConfig({
  test: {
    testTimeout: 30_000,
    // The conformance command line that tests start, bundled once per run (conformance-cli.ts says why).
    globalSetup: ["suite/test-support/build-conformance-cli.ts"],
    hookTimeout: 30_000,
    // vitest's default on 2 cores is one file at a time. Most of the long files wait
    // (servers, child processes, paced and lagging targets), so two run side by side, beside
    // the gate's three conformance runs. A third worker only adds contention: npm test took
    // 953 s of CPU and 530 s at three workers and four lanes, 782 s and 514 s at two and three.
    maxWorkers: 2,
    sequence: { sequencer: LongestFirst },
    projects: [
      { extends: true, test: { name: "own-process", include: OWN_PROCESS, exclude: EXCLUDE } },
      {
        extends: true,
        test: { name: "shared", include: INCLUDE, exclude: [...EXCLUDE, ...OWN_PROCESS], isolate: false },
      },
    ],
  },
});
