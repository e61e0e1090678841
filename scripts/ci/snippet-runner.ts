/**
 * Runs a CI snippet of the docs as printed, against the fake: a GitHub Actions workflow (its
 * `run:` steps with their env, and a step that uses this repository's action) or a GitLab CI
 * job (its variables and script). The runner's own plumbing (checkout, setup-node, uploads)
 * is not run; what an upload names must exist once the job has run.
 */
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { delimiter, join, resolve } from "node:path";
import { parse } from "yaml";
import { z } from "zod";
import { runCommand } from "../package/command.ts";
import { runAction } from "./action-runner.ts";
import { substitute } from "./expressions.ts";
import { snippetCommands } from "./shims.ts";
import { fakeFor } from "./snippet-identities.ts";

const ROOT = resolve(import.meta.dirname, "../..");
const ACTION = join(ROOT, "action.yml");
/** Plumbing a runner provides: nothing of the suite happens there. */
const PLUMBING = /^actions\/(checkout|setup-node|upload-artifact)@v\d+$/;

const scalar = z.union([z.string(), z.number(), z.boolean()]).transform(String);
const GitHubStep = z.looseObject({
  id: z.string().optional(),
  uses: z.string().optional(),
  run: z.string().optional(),
  env: z.record(z.string(), scalar).default({}),
  with: z.record(z.string(), scalar).default({}),
});
const GitHubWorkflow = z.looseObject({ jobs: z.record(z.string(), z.looseObject({ steps: z.array(GitHubStep).min(1) })) });
const GitLabJob = z.looseObject({
  variables: z.record(z.string(), scalar).default({}),
  script: z.array(z.string()).min(1),
  artifacts: z.looseObject({ paths: z.array(z.string()).default([]), reports: z.looseObject({ junit: z.string().optional() }).optional() }).optional(),
});

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

/** A service repository to run in, and a PATH whose npm and npx are the stand-ins. */
async function workspace(): Promise<Workspace> {
  const base = await mkdtemp(join(tmpdir(), "ci-snippet-"));
  const folder = join(base, "service");
  await mkdir(folder);
  const commands = await snippetCommands(join(base, "commands"));
  return { folder, path: `${commands}${delimiter}${process.env["PATH"] ?? ""}`, remove: () => rm(base, { recursive: true, force: true }) };
}

/** Every setting a workflow states for the suite: step env and the action's `with`. */
function workflowSettings(workflow: z.infer<typeof GitHubWorkflow>): Record<string, string> {
  return Object.assign({}, ...Object.values(workflow.jobs).flatMap((job) => job.steps.flatMap((step) => [step.env, step.uses === undefined || PLUMBING.test(step.uses) ? {} : step.with])));
}

export async function runGitHubWorkflow(text: string, timeoutMs: number, actionName: string): Promise<SnippetRun> {
  const workflow = GitHubWorkflow.parse(parse(text));
  const { fake, valueOf } = await fakeFor(workflowSettings(workflow));
  const space = await workspace();
  try {
    const outputs: Record<string, Record<string, string>> = {};
    const evaluate = (text: string) =>
      substitute(text, (expression) => {
        const output = /^steps\.([\w-]+)\.outputs\.([\w-]+)$/.exec(expression);
        if (output !== null) return outputs[output[1] ?? ""]?.[output[2] ?? ""] ?? "";
        throw new Error(`${JSON.stringify(expression)} outside a setting the test maps to the fake`);
      });
    let output = "";
    const uploads: string[] = [];
    for (const job of Object.values(workflow.jobs)) {
      for (const step of job.steps) {
        if (step.uses !== undefined && PLUMBING.test(step.uses)) {
          if (step.uses.startsWith("actions/upload-artifact")) uploads.push(evaluate(step.with["path"] ?? ""));
          continue;
        }
        const env = Object.fromEntries(Object.entries(step.env).map(([name, value]) => [name, valueOf(name, value)]));
        if (step.uses !== undefined) {
          if (!step.uses.startsWith(`${actionName}@`)) throw new Error(`a step uses ${step.uses}, which the test cannot run`);
          const given = Object.fromEntries(Object.entries(step.with).map(([name, value]) => [name, valueOf(name, value)]));
          const run = await runAction(ACTION, { with: given, workspace: space.folder, env: { ...env, PATH: space.path }, timeoutMs });
          output += run.steps.map((ran) => ran.output).join("\n");
          if (step.id !== undefined) outputs[step.id] = { ...run.outputs };
          if (run.code !== 0) return { code: run.code, output, missing: [] };
          continue;
        }
        if (step.run === undefined) throw new Error("a step with neither uses nor run");
        const result = await runCommand("bash", ["--noprofile", "--norc", "-eo", "pipefail", "-c", evaluate(step.run)], {
          cwd: space.folder,
          timeoutMs,
          env: { ...env, PATH: space.path, CI: "true", GITHUB_ACTIONS: "true" },
        });
        output += result.output;
        if (result.code !== 0) return { code: result.code, output, missing: [] };
      }
    }
    return { code: 0, output, missing: uploads.filter((path) => !existsSync(resolve(space.folder, path))) };
  } finally {
    await fake.close();
    await space.remove();
  }
}

export async function runGitLabJobs(text: string, timeoutMs: number): Promise<SnippetRun[]> {
  const pipeline = z.record(z.string(), z.unknown()).parse(parse(text));
  const jobs = Object.values(pipeline).filter((value) => typeof value === "object" && value !== null && "script" in value).map((value) => GitLabJob.parse(value));
  if (jobs.length === 0) throw new Error("a GitLab CI snippet without a job");
  const runs: SnippetRun[] = [];
  for (const job of jobs) {
    // `$NAME` in variables reads the project's CI/CD variables: mapped to the fake by the setting's name.
    const { fake, valueOf } = await fakeFor(job.variables);
    const space = await workspace();
    try {
      const env = Object.fromEntries(Object.entries(job.variables).map(([name, value]) => [name, valueOf(name, value)]));
      // GitLab runs the script's lines in one shell that stops at the first failing line.
      const result = await runCommand("bash", ["--noprofile", "--norc", "-eo", "pipefail", "-c", job.script.join("\n")], {
        cwd: space.folder,
        timeoutMs,
        env: { ...env, PATH: space.path, CI: "true", GITLAB_CI: "true" },
      });
      const uploads = [...(job.artifacts?.paths ?? []), ...(job.artifacts?.reports?.junit === undefined ? [] : [job.artifacts.reports.junit])];
      runs.push({ code: result.code, output: result.output, missing: uploads.filter((path) => !existsSync(resolve(space.folder, path))) });
    } finally {
      await fake.close();
      await space.remove();
    }
  }
  return runs;
}
