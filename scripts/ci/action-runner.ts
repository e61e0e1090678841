/**
 * Runs a composite action's steps the way a GitHub runner does, for tests: inputs (given or
 * defaulted) and step outputs substituted into `${{ }}` expressions, each `run:` written to a
 * file and run by `bash --noprofile --norc -eo pipefail` in its working directory with its
 * env, a fresh GITHUB_OUTPUT file per step read back as that step's outputs, and the steps
 * after a failed one skipped.
 */
import { mkdtemp, readFile, writeFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import { parse } from "yaml";
import { z } from "zod";
import { runCommand, type CommandResult } from "../package/command.ts";
import { substitute } from "./expressions.ts";

const Step = z.strictObject({
  name: z.string(),
  id: z.string(),
  shell: z.literal("bash"),
  "working-directory": z.string().optional(),
  env: z.record(z.string(), z.string()).default({}),
  run: z.string(),
});

export const CompositeAction = z.looseObject({
  name: z.string(),
  description: z.string(),
  inputs: z.record(
    z.string(),
    z.strictObject({ description: z.string(), required: z.boolean().default(false), default: z.string().optional() }),
  ),
  outputs: z.record(z.string(), z.strictObject({ description: z.string(), value: z.string() })),
  runs: z.strictObject({ using: z.literal("composite"), steps: z.array(Step).min(1) }),
});
export type CompositeAction = z.infer<typeof CompositeAction>;

export interface ActionRun {
  /** The exit code of the failed step, or 0. */
  readonly code: number | null;
  readonly outputs: Readonly<Record<string, string>>;
  /** Each step that ran, with its output. */
  readonly steps: readonly (CommandResult & { id: string })[];
}

export interface ActionRunOptions {
  /** The `with:` of the step that uses the action. */
  readonly with: Readonly<Record<string, string>>;
  /** The job's working directory (GITHUB_WORKSPACE). */
  readonly workspace: string;
  /** More environment, e.g. PATH with stand-ins at its front. */
  readonly env?: NodeJS.ProcessEnv;
  readonly timeoutMs: number;
}

export async function loadAction(path: string): Promise<CompositeAction> {
  return CompositeAction.parse(parse(await readFile(path, "utf8")));
}

/** GITHUB_OUTPUT's lines: `name=value`, and `name<<DELIMITER` … `DELIMITER` for several lines. */
export function parseOutputFile(text: string): Record<string, string> {
  const outputs: Record<string, string> = {};
  const lines = text.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] ?? "";
    const heredoc = /^([^=<]+)<<(.+)$/.exec(line);
    if (heredoc !== null) {
      const end = lines.indexOf(heredoc[2] ?? "", i + 1);
      outputs[heredoc[1] ?? ""] = lines.slice(i + 1, end).join("\n");
      i = end;
    } else if (line.includes("=")) {
      outputs[line.slice(0, line.indexOf("="))] = line.slice(line.indexOf("=") + 1);
    }
  }
  return outputs;
}

export async function runAction(actionPath: string, options: ActionRunOptions): Promise<ActionRun> {
  const action = await loadAction(actionPath);
  const actionDir = resolve(actionPath, "..");
  const runnerTemp = await mkdtemp(join(options.workspace, "..", "runner-temp-"));
  const unknownInputs = Object.keys(options.with).filter((name) => !(name in action.inputs));
  if (unknownInputs.length > 0) throw new Error(`inputs the action does not declare: ${unknownInputs.join(", ")}`);
  const inputs: Record<string, string> = {};
  for (const [name, input] of Object.entries(action.inputs)) {
    const given = options.with[name];
    if (given === undefined && input.required) throw new Error(`input ${name} is required`);
    inputs[name] = given ?? input.default ?? "";
  }
  const stepOutputs: Record<string, Record<string, string>> = {};
  const evaluate = (text: string) =>
    substitute(text, (expression) => {
      const input = /^inputs\.([\w-]+)$/.exec(expression);
      if (input !== null) return inputs[input[1] ?? ""] ?? "";
      const output = /^steps\.([\w-]+)\.outputs\.([\w-]+)$/.exec(expression);
      if (output !== null) return stepOutputs[output[1] ?? ""]?.[output[2] ?? ""] ?? "";
      if (expression === "github.action_path") return actionDir;
      if (expression === "runner.temp") return runnerTemp;
      throw new Error(`the emulated runner does not know the expression ${JSON.stringify(expression)}`);
    });

  const ran: (CommandResult & { id: string })[] = [];
  let code: number | null = 0;
  for (const step of action.runs.steps) {
    const script = join(runnerTemp, `${step.id}.sh`);
    const outputFile = join(runnerTemp, `${step.id}.output`);
    await writeFile(script, evaluate(step.run));
    await writeFile(outputFile, "");
    const env = Object.fromEntries(Object.entries(step.env).map(([name, value]) => [name, evaluate(value)]));
    const result = await runCommand("bash", ["--noprofile", "--norc", "-eo", "pipefail", script], {
      cwd: resolve(options.workspace, evaluate(step["working-directory"] ?? ".")),
      timeoutMs: options.timeoutMs,
      env: {
        ...options.env,
        ...env,
        CI: "true",
        GITHUB_ACTIONS: "true",
        GITHUB_WORKSPACE: options.workspace,
        GITHUB_ACTION_PATH: actionDir,
        GITHUB_OUTPUT: outputFile,
        RUNNER_TEMP: runnerTemp,
      },
    });
    ran.push({ ...result, id: step.id });
    stepOutputs[step.id] = parseOutputFile(await readFile(outputFile, "utf8"));
    if (result.code !== 0) {
      code = result.code;
      break;
    }
  }
  const outputs = Object.fromEntries(
    Object.entries(action.outputs).map(([name, output]) => [name, evaluate(output.value)]),
  );
  return { code, outputs, steps: ran };
}
