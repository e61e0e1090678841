/**
 * One conformance run for CI snippets that come to the same command: the GitHub and GitLab
 * versions of a job run the same `agent-conformance` line with the same settings, and a second
 * run of it against another plain fake would show nothing the first did not.
 *
 * Usage: node shared-run.mjs MEMO_DIR -- COMMAND… -- ARG…
 *
 * The first caller with a given line (ARG…, the CONFORMANCE_* settings but the base URL, which
 * names each snippet's own fake) runs COMMAND ARG… and keeps its exit code, output and report
 * directory in MEMO_DIR; a later caller with the same line waits for that run, copies its reports
 * to its own --report-dir, prints its output with a note that says so, and exits with its code.
 * Subcommands (merge, judge, proxy) and lines without --report-dir always run.
 */
import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { cpSync, existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";

const [memoDir, separator, ...rest] = process.argv.slice(2);
const end = rest.indexOf("--");
if (memoDir === undefined || separator !== "--" || end < 1) {
  process.stderr.write("usage: node shared-run.mjs MEMO_DIR -- COMMAND... -- ARG...\n");
  process.exit(2);
}
const command = rest.slice(0, end);
const args = rest.slice(end + 1);

/** The value of --report-dir, spelled either way; undefined when the line does not set it. */
function reportDirOf(line) {
  for (let i = 0; i < line.length; i++) {
    if (line[i] === "--report-dir") return line[i + 1];
    if (line[i]?.startsWith("--report-dir=")) return line[i].slice("--report-dir=".length);
  }
  return undefined;
}

/** Runs the line itself, its output passed through; resolves with what a later caller replays. */
function runItself() {
  const [file, ...commandArgs] = command;
  const child = spawn(file, [...commandArgs, ...args], { stdio: ["ignore", "pipe", "pipe"] });
  for (const signal of ["SIGINT", "SIGTERM"]) process.on(signal, () => child.kill(signal));
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (part) => {
    stdout += part;
    process.stdout.write(part);
  });
  child.stderr.on("data", (part) => {
    stderr += part;
    process.stderr.write(part);
  });
  return new Promise((done) =>
    child.on("close", (code, signal) => done({ code: code ?? (signal ? 1 : 0), stdout, stderr })),
  );
}

const reportDir = reportDirOf(args);
const subcommand = ["merge", "judge", "proxy"].includes(args[0] ?? "");
if (reportDir === undefined || subcommand) {
  const { code } = await runItself();
  process.exit(code);
}

const settings = Object.entries(process.env)
  .filter(([name]) => name.startsWith("CONFORMANCE_") && name !== "CONFORMANCE_BASE_URL")
  .sort(([a], [b]) => a.localeCompare(b));
const key = createHash("sha256").update(JSON.stringify({ args, settings })).digest("hex").slice(0, 16);
const entry = join(memoDir, key);
const result = join(entry, "result.json");
const keptReports = join(entry, "reports");

let first = true;
try {
  mkdirSync(entry, { recursive: false });
} catch (error) {
  if (error?.code !== "EEXIST") throw error;
  first = false;
}

if (first) {
  const ran = await runItself();
  const target = resolve(reportDir);
  if (existsSync(target)) cpSync(target, keptReports, { recursive: true });
  writeFileSync(`${result}.tmp`, JSON.stringify(ran));
  renameSync(`${result}.tmp`, result);
  process.exit(ran.code);
}

// The run's callers stop it with their own time limits; this wait ends with them.
while (!existsSync(result)) await sleep(200);
const ran = JSON.parse(readFileSync(result, "utf8"));
if (existsSync(keptReports)) cpSync(keptReports, resolve(reportDir), { recursive: true });
process.stderr.write("(the same command and settings as an earlier snippet's: that run's output and reports)\n");
process.stdout.write(ran.stdout);
process.stderr.write(ran.stderr);
process.exit(ran.code);
