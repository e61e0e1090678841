/**
 * agent-conformance merge DIR… [--report-dir DIR]: reads the conformance.json (and junit.xml) of
 * every shard of a run (--shard I/N) and writes the three reports of the whole, with one result
 * and the exit code that follows it. Shards that do not make one run (other targets, suites or
 * counts, a shard missing or given twice) are refused: exit 2 with the reason, and the three
 * reports with result "error" and that diagnosis, as every run that stops writes them.
 */
import { readFile, writeFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import { z } from "zod";
import type { ConformanceReport } from "../report/report-types.ts";
import { exitCodeOfResult } from "./build-report.ts";
import {
  flagHelp,
  flagValueOf,
  parseFlags,
  stringFlag,
  switchFlag,
  UnknownFlagError,
  UsageError,
  type FlagTable,
} from "../../cli/flags.ts";
import { writeReport } from "./conformance-reporter.ts";
import { summaryLines } from "./console-summary.ts";
import { errorReport, writeErrorReports } from "./error-report.ts";
import { readJsonFile } from "./read-json-file.ts";
import { mergeJunit } from "./merge-junit.ts";
import { mergeReports, refusal, ShardReportSchema, type ShardInput } from "./merge-reports.ts";
import { writeHtmlReport } from "../report/html.ts";

const FLAGS = {
  reportDir: {
    name: "report-dir",
    value: "DIR",
    help: "where the whole run's conformance.json, junit.xml and report.html go (default reports)",
    parser: stringFlag("reports"),
  },
  help: { name: "help", help: "show this help", parser: switchFlag() },
} satisfies FlagTable;

const MERGE_USAGE = `Usage: agent-conformance merge DIR... [--report-dir DIR]
       (in this repository: npm run conformance -- merge DIR...)

Makes one report of the shards of a run (agent-conformance --shard I/N in N jobs): each DIR
holds one shard's reports. A requirement takes the worst verdict of the shards that judged it;
the interaction property's coverage is the union of the shards', its creates summed.

${flagHelp(FLAGS, { helpAt: 22 })}

Exit codes: 0, 1 and 3 as for a run (the whole run's result); 2 a usage error, or shards that are
not the N shards of one run (other targets, suites or counts, a shard missing or given twice),
or a shard the harness could not run.`;

interface Output {
  print: (line: string) => void;
  printError: (line: string) => void;
}

const standard: Output = {
  print: (line) => process.stdout.write(`${line}\n`),
  printError: (line) => process.stderr.write(`${line}\n`),
};

/** A shard's report, or why it cannot be read as one. */
async function readShard(dir: string): Promise<ShardInput | { error: string }> {
  const file = join(dir, "conformance.json");
  const loaded = await readJsonFile("merge", file, resolve(file));
  if (!loaded.ok) return { error: loaded.error.replace(/^merge /, "") };
  const parsed = ShardReportSchema.safeParse(loaded.json);
  if (!parsed.success)
    return { error: `${file}: not a conformance.json of the suite:\n${z.prettifyError(parsed.error)}` };
  return { dir, report: parsed.data as unknown as ConformanceReport };
}

async function readText(path: string): Promise<string | undefined> {
  try {
    return await readFile(path, "utf8");
  } catch {
    return undefined;
  }
}

export async function runMergeCommand(argv: readonly string[], output: Output = standard): Promise<number> {
  const { print, printError } = output;
  // Every way the merge stops writes the three reports, a mistaken command line included.
  let reportDir = resolve(flagValueOf(argv, "report-dir") ?? "reports");
  const refuse = async (reason: string, usage = ""): Promise<number> => {
    printError(`agent-conformance merge: ${reason}${usage}`);
    const unwritten = await writeErrorReports(
      reportDir,
      errorReport({ target: "(merge of shards)", diagnosis: [`merge: ${reason}`] }),
    );
    if (unwritten !== undefined)
      printError(`agent-conformance merge: the reports were not written to ${reportDir}: ${unwritten}`);
    return 2;
  };
  let parsed;
  try {
    parsed = parseFlags(FLAGS, argv, { positionals: true });
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    // An unknown flag is one line naming the flag meant; other mistakes come with the usage.
    return refuse(error.message, error instanceof UnknownFlagError ? "" : `\n${MERGE_USAGE}`);
  }
  if (parsed.values.help) {
    print(MERGE_USAGE);
    return 0;
  }
  if (!parsed.ok) return refuse(parsed.problems[0] ?? "");
  const { values, positionals } = parsed;
  reportDir = resolve(values.reportDir);
  if (positionals.length === 0) return refuse("name the folder of every shard's reports", `\n${MERGE_USAGE}`);

  const shards: ShardInput[] = [];
  for (const dir of positionals) {
    const shard = await readShard(dir);
    if ("error" in shard) return refuse(shard.error);
    shards.push(shard);
  }
  const refused = refusal(shards);
  if (refused !== undefined) return refuse(refused);

  const report = mergeReports(shards);
  const junits = await Promise.all(
    shards.map(async (s) => ({
      label: `shard ${s.report.shard?.index}/${s.report.shard?.count}`,
      xml: await readText(join(s.dir, "junit.xml")),
      report: s.report,
    })),
  );
  for (const j of junits)
    if (j.xml === undefined)
      printError(`agent-conformance merge: ${j.label} left no junit.xml: its test cases are not in the merged one`);
  await writeReport(join(reportDir, "conformance.json"), report);
  await writeFile(
    join(reportDir, "junit.xml"),
    mergeJunit(
      junits.sort((a, b) => a.label.localeCompare(b.label, undefined, { numeric: true })),
      report,
    ),
  );
  try {
    await writeHtmlReport(report, reportDir);
  } catch (error) {
    printError(
      `agent-conformance merge: report.html was not written: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
  print(`Merged ${shards.length} shard(s): ${positionals.join(", ")}`);
  for (const line of summaryLines(report, reportDir)) print(line);
  return exitCodeOfResult(report.result);
}
