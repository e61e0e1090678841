/**
 * Every CI snippet of README.md and docs/USING.md, run as printed against the fake: the
 * commands and settings as a user copies them, with only the service (URL, keys, stream-error
 * hook) mapped to the fake and `npx agent-conformance` to this checkout's suite. Each must
 * exit 0 and leave what it uploads; a sharded one (a matrix or `parallel:` job) must end in one
 * merged report of all its shards. Snippets whose suite commands come to the same line and
 * settings (a GitHub job and its GitLab twin) share that run: shared-run.mjs.
 */
import { readFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { parse } from "yaml";
import { afterAll, expect, test } from "vitest";
import { fencedBlocks } from "./markdown.ts";
import { runGitHubWorkflow, runGitLabJobs } from "./snippet-runner.ts";

const ROOT = resolve(import.meta.dirname, "../..");
const DOCS = ["README.md", "docs/USING.md"];
/** A full run takes about 10 s on the fake, a smoke run about 5 s, a deep shard about 25 s; room for a loaded machine. */
const RUN_LIMIT_MS = 240_000;

const manifest = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as {
  version: string;
  repository: { url: string };
};
/** owner/name of the repository that holds action.yml, as a `uses:` names it. */
const ACTION_NAME = /github\.com\/([^/]+\/[^/.]+)/.exec(manifest.repository.url)?.[1] ?? "";

type Kind = "github" | "gitlab";
const kindOf = (text: string): Kind | undefined => {
  const parsed = parse(text) as Record<string, unknown> | null;
  if (parsed !== null && typeof parsed === "object" && "jobs" in parsed) return "github";
  if (
    parsed !== null &&
    typeof parsed === "object" &&
    Object.values(parsed).some((job) => typeof job === "object" && job !== null && "script" in job)
  )
    return "gitlab";
  return undefined;
};

const snippets = DOCS.flatMap((doc) =>
  fencedBlocks(readFileSync(join(ROOT, doc), "utf8"), "yaml").map((block) => ({
    name: `${doc}:${block.line}`,
    text: block.text,
    kind: kindOf(block.text),
  })),
);

test("the docs hold GitHub Actions and GitLab CI snippets, and every yaml block is one of them", () => {
  expect(snippets.filter((snippet) => snippet.kind === undefined).map((snippet) => snippet.name)).toEqual([]);
  expect(snippets.filter((snippet) => snippet.kind === "github").length).toBeGreaterThanOrEqual(2);
  expect(snippets.filter((snippet) => snippet.kind === "gitlab").length).toBeGreaterThanOrEqual(1);
});

test("a snippet that uses the action names this repository at the package's version", () => {
  const uses = snippets
    .flatMap((snippet) => [...snippet.text.matchAll(/uses: (\S+\/\S+)@(\S+)/g)])
    .filter((match) => !match[1]?.startsWith("actions/"));
  expect(uses.length).toBeGreaterThan(0);
  for (const match of uses) expect(`${match[1]}@${match[2]}`).toBe(`${ACTION_NAME}@v${manifest.version}`);
});

const sharedRuns = mkdtemp(join(tmpdir(), "ci-shared-runs-"));
afterAll(async () => rm(await sharedRuns, { recursive: true, force: true }));

// Concurrent: a run mostly waits on the fake's pauses and the suite's settle windows.
test.concurrent.for(snippets.filter((snippet) => snippet.kind !== undefined))(
  "the CI snippet at $name passes as printed against a conforming service, and leaves what it uploads",
  { timeout: 3 * RUN_LIMIT_MS },
  async ({ text, kind }, { expect }) => {
    const runs =
      kind === "github"
        ? [await runGitHubWorkflow(text, RUN_LIMIT_MS, ACTION_NAME, { sharedRuns: await sharedRuns })]
        : await runGitLabJobs(text, RUN_LIMIT_MS, { sharedRuns: await sharedRuns });
    for (const run of runs) {
      expect(run.code, run.output).toBe(0);
      expect(run.output).toContain("Result: PASS");
      expect(run.missing, run.output).toEqual([]);
      const shards = /--shard [^\n]*?\/(\d+)|parallel: (\d+)/.exec(text);
      if (shards !== null)
        expect(run.output).toMatch(new RegExp(`^Merged ${shards[1] ?? shards[2]} shard\\(s\\)`, "m"));
    }
  },
);
