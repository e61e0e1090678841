/**
 * The published documents against the services they describe, through Prism's validation
 * proxy (@stoplight/prism-cli), as a user would run it: a selection of the conformance suite
 * runs through `prism proxy`, and Prism must report no answer that breaks the document.
 * The contract (openapi.json) in front of every conforming variant of the fake (each variant
 * that combines with the others, all at once, and each that does not, alone: the error
 * shapes among them); the fake's own document (fake.json) in front of the plain fake. And, so
 * that a silent Prism means something, fake.json in front of a variant it does not describe.
 */
import { spawn } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, expect, test } from "vitest";
import { SLOT_WAIT_MS, takeExclusiveSlot } from "../../test-support/exclusive-slot.ts";
import { createFakeServer } from "../../fake-server/index.ts";
import { fakeTargetFlags } from "../../suite/test-support/fake-target-flags.ts";
import { conformanceCli } from "../../suite/test-support/conformance-cli.ts";
import { ALL_VARIANTS, VARIANTS } from "../../fake-server/variants/variants.ts";
import { answersSeen, responseViolations, startPrismProxy } from "./prism-proxy.ts";

const ROOT = resolve(import.meta.dirname, "../..");
const CONTRACT = join(ROOT, "openapi/openapi.json");
const FAKE_DOCUMENT = join(ROOT, "openapi/fake.json");

/**
 * Checks that reach every operation's answers, successes and refusals (no key, bad bodies,
 * bad pages, unknown and foreign conversations, reused keys, an error event), and the shared
 * conversations they read (a streamed continuation among them). The run's cleanup deletes what
 * it created: the deletes' successes.
 */
const SELECTION =
  "AUTH-*,RESP-4,RESP-5,RESP-6,RESP-8,IDEM-3,IDEM-6,IDEM-8,SSE-6,SSE-10,LIST-4,LIST-6,LIST-9,LIST-10,DEL-2,SCOPE-2,ERR-1";

/** Every operation answered both ways, so that no part of a document went unchecked. */
const EXPECTED_ANSWERS = ["createResponse", "createResponseStream", "listMessages", "deleteConversation"].flatMap(
  (op) => [`${op} 2xx`, `${op} 4xx`],
);

/** A run at most; the rate-limited and paced variants wait for their Retry-After and pacing. */
const RUN_LIMIT_MS = 150_000;

const reportRoot = mkdtemp(join(tmpdir(), "prism-proof-"));
let releaseSlot: (() => void) | undefined;
// A dozen conformance runs behind a validation proxy keep both cores busy: never beside the other file that does.
beforeAll(async () => {
  releaseSlot = await takeExclusiveSlot();
}, SLOT_WAIT_MS);
afterAll(async () => {
  releaseSlot?.();
  await rm(await reportRoot, { recursive: true, force: true, maxRetries: 5, retryDelay: 200 }).catch(() => {});
});

interface Run {
  readonly target: string;
  readonly violations: string[];
  readonly seen: string[];
  readonly suite: { code: number | null; tail: string };
}

/** The suite's command line, as a user runs it against a standalone service. */
function runSuite(baseUrl: string, reportDir: string): Promise<Run["suite"]> {
  const args = [
    ...conformanceCli(),
    ...fakeTargetFlags(baseUrl),
    "--only",
    SELECTION,
    "--settle-ms",
    "1000",
    "--report-dir",
    reportDir,
  ];
  return new Promise((done) => {
    const child = spawn(process.execPath, args, {
      cwd: ROOT,
      stdio: ["ignore", "pipe", "pipe"],
      timeout: RUN_LIMIT_MS,
    });
    let output = "";
    child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString()));
    child.on("close", (code) => done({ code, tail: output.slice(-3000) }));
  });
}

async function throughPrism(document: string, variants: readonly string[]): Promise<Run> {
  const target = variants.length ? variants.join(",") : "plain";
  const fake = await createFakeServer({ variants: [...variants] });
  try {
    const prism = await startPrismProxy(document, fake.url);
    try {
      const suite = await runSuite(
        prism.url,
        join(await reportRoot, `${document.endsWith("fake.json") ? "fake" : "contract"}-${target}`),
      );
      const lines = prism.lines();
      return { target, violations: responseViolations(lines), seen: [...answersSeen(lines)].sort(), suite };
    } finally {
      await prism.close();
    }
  } finally {
    await fake.close();
  }
}

/** Two at a time: each is a suite process, a Prism process and a fake. */
async function inPairs<T, R>(items: readonly T[], run: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = [];
  for (let i = 0; i < items.length; i += 2) results.push(...(await Promise.all(items.slice(i, i + 2).map(run))));
  return results;
}

/**
 * What a run shows: its violations, and what the suite did not reach through Prism. The suite's
 * own verdict is not Prism's business (it may fail a check that Prism's buffering of the stream
 * upsets); when something went unreached, its output says why.
 */
const verdict = (run: Run) => {
  const unreached = EXPECTED_ANSWERS.filter((answer) => !run.seen.includes(answer));
  return {
    target: run.target,
    violations: run.violations,
    unreached,
    ...(unreached.length ? { suite: `exit ${run.suite.code}: ${run.suite.tail}` } : {}),
  };
};

const CONFORMING = [[ALL_VARIANTS], ...VARIANTS.filter((v) => !v.inAll).map((v) => [v.name])];

test(
  `the contract (openapi.json): Prism finds no violation in front of every conforming variant (${CONFORMING.map((v) => v.join()).join(", ")})`,
  async () => {
    const runs = await inPairs(CONFORMING, (variants) => throughPrism(CONTRACT, variants));
    expect(runs.map(verdict)).toEqual(CONFORMING.map((v) => ({ target: v.join(), violations: [], unreached: [] })));
  },
  RUN_LIMIT_MS * Math.ceil(CONFORMING.length / 2) + 60_000,
);

test(
  "the fake's document (fake.json): Prism finds no violation in front of the plain fake, and finds the flat error bodies it does not describe",
  async () => {
    const [plain, flat] = await Promise.all([
      throughPrism(FAKE_DOCUMENT, []),
      throughPrism(FAKE_DOCUMENT, ["flat-errors"]),
    ]);
    expect(plain && verdict(plain)).toEqual({ target: "plain", violations: [], unreached: [] });
    expect(flat?.violations).toContain("response.body Response body must have required property 'error'");
  },
  RUN_LIMIT_MS + 60_000,
);
