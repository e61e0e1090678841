/**
 * Runs a CI snippet of the docs as printed, against the fake: a GitHub Actions workflow (its
 * jobs in the order their `needs` allow, a matrix job once per combination, each `run:` step
 * with its env, a step that uses this repository's action) or a GitLab CI pipeline (its stages
 * in order, a `parallel:` job once per node with CI_NODE_INDEX and CI_NODE_TOTAL, each job's
 * variables and script). Every job instance runs in a workspace of its own, as on a real runner:
 * only what it uploads (GitHub's upload-artifact, GitLab's `artifacts:`) reaches a later job
 * (download-artifact; GitLab's earlier stages). The runner's own plumbing (checkout,
 * setup-node) is not run; what an upload names must exist once its job has run. One fake serves
 * the whole workflow or pipeline, so the shards of one run judge one target.
 */
import { mkdir, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { delimiter, join, resolve } from "node:path";
import { parse } from "yaml";
import { z } from "zod";
import { runCommand } from "../package/command.ts";
import { runAction } from "./action-runner.ts";
import { ArtifactStore } from "./artifacts.ts";
import { substitute } from "./expressions.ts";
import { snippetCommands } from "./shims.ts";
import { fakeFor } from "./snippet-identities.ts";

const ROOT = resolve(import.meta.dirname, "../..");
const ACTION = join(ROOT, "action.yml");
/** Plumbing a runner provides: nothing of the suite happens there. */
const PLUMBING = /^actions\/(checkout|setup-node|upload-artifact|download-artifact)@v\d+$/;

const scalar = z.union([z.string(), z.number(), z.boolean()]).transform(String);
const GitHubStep = z.looseObject({
  id: z.string().optional(),
  if: z.string().optional(),
  "continue-on-error": z.union([z.boolean(), z.string()]).optional(),
  uses: z.string().optional(),
  run: z.string().optional(),
  env: z.record(z.string(), scalar).default({}),
  with: z.record(z.string(), scalar).default({}),
});
const GitHubJob = z.looseObject({
  needs: z.union([z.string(), z.array(z.string())]).optional(),
  if: z.string().optional(),
  strategy: z.looseObject({ matrix: z.record(z.string(), z.array(scalar)).optional() }).optional(),
  steps: z.array(GitHubStep).min(1),
});
const GitHubWorkflow = z.looseObject({ jobs: z.record(z.string(), GitHubJob) });
const GitLabJob = z.looseObject({
  stage: z.string().default("test"),
  when: z.enum(["on_success", "always"]).default("on_success"),
  parallel: z.int().min(1).optional(),
  allow_failure: z.union([z.boolean(), z.looseObject({ exit_codes: z.union([z.int(), z.array(z.int())]) })]).optional(),
  variables: z.record(z.string(), scalar).default({}),
  script: z.array(z.string()).min(1),
  artifacts: z
    .looseObject({
      when: z.enum(["on_success", "on_failure", "always"]).default("on_success"),
      paths: z.array(z.string()).default([]),
      reports: z.looseObject({ junit: z.string().optional() }).optional(),
    })
    .optional(),
});
const GitLabPipeline = z.looseObject({ stages: z.array(z.string()).default(["build", "test", "deploy"]) });

export interface SnippetRun {
  readonly code: number | null;
  readonly output: string;
  /** Paths the snippet uploads that the run did not leave. */
  readonly missing: readonly string[];
}

interface Workspace {
  readonly folder: string;
  readonly path: string;
  /** Removes the workspace and the stand-ins. */
  remove(): Promise<void>;
}

/**
 * A service repository to run in, and a PATH whose npm and npx are the stand-ins (with
 * `sharedRuns`, the suite's runs of one command and settings run once: shared-run.mjs).
 */
async function workspace(sharedRuns: string | undefined): Promise<Workspace> {
  const base = await mkdtemp(join(tmpdir(), "ci-snippet-"));
  const folder = join(base, "service");
  await mkdir(folder);
  const commands = await snippetCommands(join(base, "commands"), undefined, sharedRuns);
  return {
    folder,
    path: `${commands}${delimiter}${process.env["PATH"] ?? ""}`,
    remove: () => rm(base, { recursive: true, force: true }),
  };
}

/** Where a run keeps the artifacts its jobs hand on. */
async function artifactStore(): Promise<{ store: ArtifactStore; remove(): Promise<void> }> {
  const root = await mkdtemp(join(tmpdir(), "ci-artifacts-"));
  return { store: new ArtifactStore(root), remove: () => rm(root, { recursive: true, force: true }) };
}

/** `always()`, bare or in `${{ }}`: the only condition the snippets use. */
function isAlways(condition: string | undefined): boolean {
  if (condition === undefined) return false;
  if (/^\s*(\$\{\{\s*)?always\(\)(\s*\}\})?\s*$/.test(condition)) return true;
  throw new Error(`the condition ${JSON.stringify(condition)}, which the emulation does not evaluate`);
}

/** Every combination of a matrix, as `matrix.NAME` values; one empty combination without a matrix. */
function combinations(matrix: Readonly<Record<string, readonly string[]>> | undefined): Record<string, string>[] {
  return Object.entries(matrix ?? {}).reduce<Record<string, string>[]>(
    (all, [name, values]) => all.flatMap((c) => values.map((value) => ({ ...c, [name]: value }))),
    [{}],
  );
}

/** Every setting a workflow states for the suite: step env and the action's `with`. */
function workflowSettings(workflow: z.infer<typeof GitHubWorkflow>): Record<string, string> {
  return Object.assign(
    {},
    ...Object.values(workflow.jobs).flatMap((job) =>
      job.steps.flatMap((step) => [step.env, step.uses === undefined || PLUMBING.test(step.uses) ? {} : step.with]),
    ),
  );
}

interface GitHubContext {
  readonly valueOf: (name: string, printed: string) => string;
  readonly store: ArtifactStore;
  readonly timeoutMs: number;
  readonly actionName: string;
  readonly sharedRuns: string | undefined;
}

/** One instance of a GitHub job (one matrix combination) in a workspace of its own. */
async function runGitHubJob(
  job: z.infer<typeof GitHubJob>,
  matrix: Readonly<Record<string, string>>,
  context: GitHubContext,
): Promise<SnippetRun> {
  const space = await workspace(context.sharedRuns);
  try {
    const outputs: Record<string, Record<string, string>> = {};
    const evaluate = (text: string) =>
      substitute(text, (expression) => {
        const output = /^steps\.([\w-]+)\.outputs\.([\w-]+)$/.exec(expression);
        if (output !== null) return outputs[output[1] ?? ""]?.[output[2] ?? ""] ?? "";
        const fromMatrix = /^matrix\.([\w-]+)$/.exec(expression);
        const value = fromMatrix === null ? undefined : matrix[fromMatrix[1] ?? ""];
        if (value !== undefined) return value;
        throw new Error(`${JSON.stringify(expression)} outside a setting the test maps to the fake`);
      });
    let output = "";
    let failed: number | null | undefined;
    const missing: string[] = [];
    for (const step of job.steps) {
      // After a failed step only `if: always()` steps run, as on a runner.
      if (!isAlways(step.if) && (step.if !== undefined || failed !== undefined)) continue;
      const softFailure = step["continue-on-error"] === true || step["continue-on-error"] === "true";
      if (step.uses !== undefined && PLUMBING.test(step.uses)) {
        await plumbing(
          step.uses,
          Object.fromEntries(Object.entries(step.with).map(([name, value]) => [name, evaluate(value)])),
          space.folder,
          context.store,
          missing,
        );
        continue;
      }
      const env = Object.fromEntries(
        Object.entries(step.env).map(([name, value]) => [name, context.valueOf(name, value)]),
      );
      let code: number | null;
      if (step.uses !== undefined) {
        if (!step.uses.startsWith(`${context.actionName}@`))
          throw new Error(`a step uses ${step.uses}, which the test cannot run`);
        const given = Object.fromEntries(
          Object.entries(step.with).map(([name, value]) => [name, context.valueOf(name, value)]),
        );
        const run = await runAction(ACTION, {
          with: given,
          workspace: space.folder,
          env: { ...env, PATH: space.path },
          timeoutMs: context.timeoutMs,
        });
        output += run.steps.map((ran) => ran.output).join("\n");
        if (step.id !== undefined) outputs[step.id] = { ...run.outputs };
        code = run.code;
      } else {
        if (step.run === undefined) throw new Error("a step with neither uses nor run");
        const result = await runCommand(
          "bash",
          ["--noprofile", "--norc", "-eo", "pipefail", "-c", evaluate(step.run)],
          {
            cwd: space.folder,
            timeoutMs: context.timeoutMs,
            env: { ...env, PATH: space.path, CI: "true", GITHUB_ACTIONS: "true" },
          },
        );
        output += result.output;
        code = result.code;
      }
      if (code !== 0 && !softFailure) failed ??= code;
    }
    return { code: failed ?? 0, output, missing };
  } finally {
    await space.remove();
  }
}

/** actions/upload-artifact and actions/download-artifact against the run's store; checkout and setup-node do nothing here. */
async function plumbing(
  uses: string,
  given: Readonly<Record<string, string>>,
  folder: string,
  store: ArtifactStore,
  missing: string[],
): Promise<void> {
  if (uses.startsWith("actions/upload-artifact")) {
    const paths = (given["path"] ?? "")
      .split("\n")
      .map((p) => p.trim())
      .filter((p) => p !== "");
    missing.push(...(await store.save(given["name"] ?? "artifact", folder, paths, true)));
    return;
  }
  if (!uses.startsWith("actions/download-artifact")) return;
  const into = join(folder, given["path"] ?? ".");
  const name = given["name"];
  if (name !== undefined) return store.restore(name, into);
  const pattern = new RegExp(
    `^${(given["pattern"] ?? "*").replace(/[.+^${}()|[\]\\]/g, "\\$&").replaceAll("*", ".*")}$`,
  );
  const together = given["merge-multiple"] === "true";
  for (const artifact of store.names.filter((n) => pattern.test(n)))
    await store.restore(artifact, together ? into : join(into, artifact));
}

/** Where snippets that come to the same suite command share its run; none: every run its own. */
export interface SnippetOptions {
  readonly sharedRuns?: string;
}

export async function runGitHubWorkflow(
  text: string,
  timeoutMs: number,
  actionName: string,
  options: SnippetOptions = {},
): Promise<SnippetRun> {
  const workflow = GitHubWorkflow.parse(parse(text));
  const { fake, valueOf } = await fakeFor(workflowSettings(workflow));
  const artifacts = await artifactStore();
  try {
    const results = new Map<string, SnippetRun | "skipped">();
    let output = "";
    const missing: string[] = [];
    for (const [name, job] of Object.entries(workflow.jobs)) {
      const needs = job.needs === undefined ? [] : typeof job.needs === "string" ? [job.needs] : job.needs;
      const unmet = needs.filter((need) => !results.has(need));
      if (unmet.length > 0) throw new Error(`job ${name} needs ${unmet.join(", ")}, listed after it`);
      const needsPassed = needs.every((need) => {
        const result = results.get(need);
        return result !== "skipped" && result?.code === 0;
      });
      const always = isAlways(job.if);
      if (job.if !== undefined && !always) throw new Error(`job ${name}: a condition the emulation does not evaluate`);
      if (!needsPassed && !always) {
        results.set(name, "skipped");
        continue;
      }
      // A matrix's jobs run side by side, as a runner starts them.
      const runs = await Promise.all(
        combinations(job.strategy?.matrix).map((matrix) =>
          runGitHubJob(job, matrix, {
            valueOf,
            store: artifacts.store,
            timeoutMs,
            actionName,
            sharedRuns: options.sharedRuns,
          }),
        ),
      );
      for (const run of runs) {
        output += run.output;
        missing.push(...run.missing);
      }
      results.set(name, { code: runs.find((run) => run.code !== 0)?.code ?? 0, output: "", missing: [] });
    }
    const failedJob = [...results.values()].find((r): r is SnippetRun => r !== "skipped" && r.code !== 0);
    return { code: failedJob?.code ?? 0, output, missing };
  } finally {
    await fake.close();
    await artifacts.remove();
  }
}

/** Whether GitLab lets a job's failure pass (allow_failure, or its exit_codes). */
function allowed(job: z.infer<typeof GitLabJob>, code: number | null): boolean {
  const rule = job.allow_failure;
  if (rule === undefined || rule === false) return false;
  if (rule === true) return true;
  const codes = Array.isArray(rule.exit_codes) ? rule.exit_codes : [rule.exit_codes];
  return code !== null && codes.includes(code);
}

/**
 * A GitLab pipeline, stage by stage: one run for the whole, which fails when a job failed that
 * was not allowed to. Earlier stages' artifacts are in every later job's workspace.
 */
export async function runGitLabJobs(
  text: string,
  timeoutMs: number,
  options: SnippetOptions = {},
): Promise<SnippetRun[]> {
  const parsed = parse(text) as unknown;
  const pipeline = GitLabPipeline.parse(parsed);
  const jobs = Object.entries(z.record(z.string(), z.unknown()).parse(parsed))
    .filter(([, value]) => typeof value === "object" && value !== null && "script" in value)
    .map(([name, value]) => ({ name, job: GitLabJob.parse(value) }));
  if (jobs.length === 0) throw new Error("a GitLab CI snippet without a job");
  for (const { name, job } of jobs)
    if (!pipeline.stages.includes(job.stage)) throw new Error(`job ${name}: stage ${job.stage} is not in stages`);
  // `$NAME` in variables reads the project's CI/CD variables: mapped to the fake by the setting's name.
  const { fake, valueOf } = await fakeFor(Object.assign({}, ...jobs.map(({ job }) => job.variables)));
  const artifacts = await artifactStore();
  try {
    let output = "";
    let failed: number | null | undefined;
    const missing: string[] = [];
    for (const stage of pipeline.stages) {
      const instances = jobs
        .filter(({ job }) => job.stage === stage)
        .flatMap(({ name, job }) =>
          Array.from({ length: job.parallel ?? 1 }, (_, i) => ({
            name: job.parallel === undefined ? name : `${name} ${i + 1}/${job.parallel}`,
            job,
            node: job.parallel === undefined ? undefined : { index: i + 1, total: job.parallel },
          })),
        );
      const before = [...artifacts.store.names];
      const runs = await Promise.all(
        instances.map(async ({ name, job, node }) => {
          if (failed !== undefined && job.when !== "always") return { code: 0, output: "", missing: [], passed: true };
          const space = await workspace(options.sharedRuns);
          try {
            for (const artifact of before) await artifacts.store.restore(artifact, space.folder);
            const env = Object.fromEntries(
              Object.entries(job.variables).map(([variable, value]) => [variable, valueOf(variable, value)]),
            );
            const ci = {
              CI: "true",
              GITLAB_CI: "true",
              CI_JOB_NAME: name,
              ...(node === undefined ? {} : { CI_NODE_INDEX: String(node.index), CI_NODE_TOTAL: String(node.total) }),
            };
            // GitLab runs the script's lines in one shell that stops at the first failing line.
            const result = await runCommand(
              "bash",
              ["--noprofile", "--norc", "-eo", "pipefail", "-c", job.script.join("\n")],
              { cwd: space.folder, timeoutMs, env: { ...env, ...ci, PATH: space.path } },
            );
            const when = job.artifacts?.when ?? "on_success";
            const keep = when === "always" || (when === "on_success") === (result.code === 0);
            const uploads = [
              ...(job.artifacts?.paths ?? []),
              ...(job.artifacts?.reports?.junit === undefined ? [] : [job.artifacts.reports.junit]),
            ];
            const lost =
              keep && uploads.length > 0 ? await artifacts.store.save(name, space.folder, uploads, false) : [];
            return {
              code: result.code,
              output: result.output,
              missing: lost,
              passed: result.code === 0 || allowed(job, result.code),
            };
          } finally {
            await space.remove();
          }
        }),
      );
      for (const run of runs) {
        output += run.output;
        missing.push(...run.missing);
        if (!run.passed) failed ??= run.code;
      }
    }
    return [{ code: failed ?? 0, output, missing }];
  } finally {
    await fake.close();
    await artifacts.remove();
  }
}
