/**
 * Runs a command for the package test and the launcher tests: output captured, a hard time
 * limit, and an environment without this test run's own variables (vitest's, a loader in
 * NODE_OPTIONS, npm's lifecycle variables), so the child sees what a user's shell would give it.
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

const DROPPED = [
  /^VITEST/,
  /^NODE_OPTIONS$/,
  /^NODE_ENV$/,
  /^TEST$/,
  /^CONFORMANCE_/,
  /^npm_lifecycle_/,
  /^npm_package_/,
  /^INIT_CWD$/,
];

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
    child.on("close", (code, signal) =>
      resolve({ code, signal, stdout, stderr, output: `$ ${command} ${args.join(" ")}\n${output}` }),
    );
  });
}

/** A long-running command in its own process group, for tests that stop it with a signal. */
export interface StartedCommand {
  /** The launcher's PID: npm, npx or the bin itself. */
  pid: number;
  /** The first line on stdout; rejects if the command ends without one. */
  firstLine: Promise<string>;
  /**
   * Settles when every process of the group that held stdout or stderr has exited, so a
   * process left behind by the launcher keeps it open; on the time limit the group is killed
   * and `timedOut` is true.
   */
  finished: Promise<CommandResult & { timedOut: boolean }>;
  /** Signals the whole group; never throws (cleanup calls it after the group is gone). */
  killGroup(signal: NodeJS.Signals): void;
}

export function startCommand(command: string, args: readonly string[], options: CommandOptions): StartedCommand {
  const child = spawn(command, args, {
    cwd: options.cwd,
    env: cleanEnv(options.env),
    stdio: ["ignore", "pipe", "pipe"],
    detached: true,
  });
  if (child.pid === undefined) throw new Error(`${command} did not start`);
  const pid = child.pid;
  const killGroup = (signal: NodeJS.Signals) => {
    try {
      process.kill(-pid, signal);
    } catch {
      // The group is gone already.
    }
  };
  let timedOut = false;
  const limit = setTimeout(() => {
    timedOut = true;
    killGroup("SIGKILL");
  }, options.timeoutMs);
  let stdout = "";
  let stderr = "";
  let output = "";
  child.stderr.on("data", (part: Buffer) => {
    stderr += part.toString();
    output += part.toString();
  });
  const finished = new Promise<CommandResult & { timedOut: boolean }>((resolve, reject) => {
    child.on("error", reject);
    child.on("close", (code, signal) => {
      clearTimeout(limit);
      const status = timedOut ? "killed at the time limit" : `exit: ${code ?? signal}`;
      resolve({
        code,
        signal,
        stdout,
        stderr,
        output: `$ ${command} ${args.join(" ")}\n${output}[${status}]`,
        timedOut,
      });
    });
  });
  const firstLine = new Promise<string>((resolve, reject) => {
    child.stdout.on("data", (part: Buffer) => {
      stdout += part.toString();
      output += part.toString();
      const end = stdout.indexOf("\n");
      if (end >= 0) resolve(stdout.slice(0, end));
    });
    void finished.then(
      (result) => reject(new Error(`the command ended without a line on stdout:\n${result.output}`)),
      reject,
    );
  });
  return { pid, firstLine, finished, killGroup };
}
