/**
 * Runs the conformance command line (scripts/conformance.ts) as a user would, in its own
 * process with a hard time limit, and collects its exit code and everything it printed.
 */

import { spawn } from "node:child_process";
import { resolve } from "node:path";
import { conformanceCli } from "../test-support/conformance-cli.ts";

const ROOT = resolve(import.meta.dirname, "../..");

export interface CliRun {
  /** null when the process had to be killed at the time limit. */
  code: number | null;
  stdout: string;
  stderr: string;
}

/** This process's environment without the variables of the vitest run that hosts the test. */
function cleanEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(process.env)) {
    // Proxy settings of the machine would reroute the loopback targets of these tests.
    const proxy = /^(https?_proxy|no_proxy|all_proxy)$/i.test(name);
    if (
      !name.startsWith("VITEST") &&
      !name.startsWith("CONFORMANCE_") &&
      name !== "TEST" &&
      name !== "NODE_ENV" &&
      !proxy
    )
      env[name] = value;
  }
  return env;
}

/** `env` adds to (or, with undefined values, removes from) the clean environment. */
export function runConformanceCli(
  args: readonly string[],
  limitMs: number,
  env: NodeJS.ProcessEnv = {},
): Promise<CliRun> {
  return new Promise((done, fail) => {
    const childEnv = { ...cleanEnv(), ...env };
    const child = spawn(process.execPath, [...conformanceCli(), ...args], {
      cwd: ROOT,
      env: childEnv,
      timeout: limitMs,
      killSignal: "SIGKILL",
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (part: Buffer) => (stdout += part.toString()));
    child.stderr.on("data", (part: Buffer) => (stderr += part.toString()));
    child.on("error", fail);
    child.on("close", (code) => done({ code, stdout, stderr }));
  });
}
