#!/usr/bin/env -S npx tsx
/**
 * agent-conformance: runs the conformance suite against --base-url, or against the embedded
 * reference fake when none is given. Exit codes: 0 conforms, 1 a MUST failed (or a SHOULD
 * under --strict), 2 usage/configuration error, a setup the preflight diagnosed, unreachable
 * target, harness error, no test ran; 3 nothing failed but a MUST was skipped or inconclusive
 * without the user excluding it. A run writes conformance.json, junit.xml and report.html, also
 * when it stops with exit 2; their result follows the exit code (pass, fail, error, incomplete).
 * `agent-conformance proxy …` and `agent-conformance judge FILE.har …` judge traffic instead
 * (suite/traffic/; --help on each); `agent-conformance merge DIR…` makes one report of the
 * shards of a run (--shard I/N).
 */

import { resolve } from "node:path";
import { parseConfig, reportDirOf, usage } from "../suite/runner/config.ts";
import { displayUrl, Redactor } from "../suite/http/redact.ts";
import { errorReport, writeErrorReports } from "../suite/runner/error-report.ts";
import { listenForStop, SIGNAL_EXIT_CODES } from "../suite/runner/interruption.ts";
import { DEFAULT_IDENTITIES } from "../fake-server/access/default-identities.ts";

let redactor = new Redactor([DEFAULT_IDENTITIES.apiKey, DEFAULT_IDENTITIES.otherApiKey]);

async function main(): Promise<number> {
  const [command, ...rest] = process.argv.slice(2);
  // Judging traffic (suite/traffic/): a proxy in front of a service, or recorded HAR files.
  if (command === "proxy") return (await import("../suite/traffic/proxy/command.ts")).runProxyCommand(rest);
  if (command === "judge") return (await import("../suite/traffic/judge-command.ts")).runJudgeCommand(rest);
  if (command === "merge") return (await import("../suite/runner/merge-command.ts")).runMergeCommand(rest);
  const argv = process.argv.slice(2);
  const parsed = parseConfig(argv, process.env);
  if (!parsed.ok) {
    for (const error of parsed.errors) process.stderr.write(`agent-conformance: ${error}\n`);
    // An unknown flag's line already names the flag meant.
    if (parsed.unknownFlag !== true) process.stderr.write("run with --help for usage\n");
    // The flags did not parse, so keys cannot be told apart: a report names the target only.
    const baseUrl = process.env["CONFORMANCE_BASE_URL"];
    const target = baseUrl !== undefined && baseUrl.trim() !== "" ? displayUrl(baseUrl.trim()) : "(not set up)";
    const dir = resolve(reportDirOf(argv, process.env));
    const unwritten = await writeErrorReports(
      dir,
      errorReport({ target, diagnosis: parsed.errors.map((e) => redactor.scrub(e)) }),
    );
    if (unwritten !== undefined)
      process.stderr.write(`agent-conformance: the reports were not written to ${dir}: ${unwritten}\n`);
    return 2;
  }
  redactor = new Redactor([
    parsed.config.apiKey,
    parsed.config.otherApiKey,
    DEFAULT_IDENTITIES.apiKey,
    DEFAULT_IDENTITIES.otherApiKey,
  ]);
  if (parsed.config.help) {
    process.stdout.write(`${usage()}\n`);
    return 0;
  }
  // Ctrl-C or SIGTERM: stop starting requests, clean up, write the reports (interruption.ts); again: at once.
  const interruption = listenForStop((signal, atOnce) => {
    process.stderr.write(
      atOnce
        ? `agent-conformance: ${signal} again: stopping at once; the reports name the conversations left on the target\n`
        : `agent-conformance: ${signal}: stopping (no new request; those in flight may end first), then deleting what the run created and writing the reports; ${signal === "SIGINT" ? "Ctrl-C" : signal} again stops at once\n`,
    );
  });
  // Loaded only for a run: --help, a flag mistake and the traffic commands start without vitest.
  const { runConformance } = await import("../suite/runner/run.ts");
  const { exitCode, interrupted } = await runConformance(parsed.config, {
    invocation: { env: process.env, argv },
    interruption,
  });
  return interrupted === undefined ? exitCode : SIGNAL_EXIT_CODES[interrupted];
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    // Only reachable through a harness bug; the message still goes through the redactor.
    const text = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
    process.stderr.write(`agent-conformance: harness error: ${redactor.scrub(text)}\n`);
    process.exit(2);
  },
);
