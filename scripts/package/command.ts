/**
 * Runs a command to completion for the package test: output captured, a hard time limit, and
 * an environment without this test run's own variables (vitest's, a loader in NODE_OPTIONS,
 * npm's lifecycle variables), so the child sees what a user's shell would give it.
 */

import { spawn } from "node:child_process";

export interface CommandResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  /** stdout and stderr in arrival order, for failure messages. */
  output: string;
}

export interface CommandOptions {
  cwd: string;
  timeoutMs: number;
  env?: NodeJS.ProcessEnv;
}

const DROPPED = [/^VITEST/, /^NODE_OPTIONS$/, /^NODE_ENV$/, /^TEST$/, /^CONFORMANCE_/, /^npm_lifecycle_/, /^npm_package_/, /^INIT_CWD$/];

export function cleanEnv(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (!DROPPED.some((pattern) => pattern.test(name))) env[name] = value;
  }
  return { ...env, ...extra };
}

export function runCommand(command: string, args: readonly string[], options: CommandOptions): Promise<CommandResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      cwd: options.cwd,
      env: cleanEnv(options.env),
      stdio: ["ignore", "pipe", "pipe"],
      timeout: options.timeoutMs,
      killSignal: "SIGKILL",
    });
    let stdout = "";
    let stderr = "";
    let output = "";
    child.stdout.on("data", (part: Buffer) => {
      stdout += part.toString();
      output += part.toString();
    });
    child.stderr.on("data", (part: Buffer) => {
      stderr += part.toString();
      output += part.toString();
    });
    child.on("error", reject);
    child.on("close", (code, signal) => resolve({ code, signal, stdout, stderr, output: `$ ${command} ${args.join(" ")}\n${output}` }));
  });
}
