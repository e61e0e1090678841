/**
 * agent-conformance judge FILE.har [FILE.har …] [--report-dir DIR] [--strict] [--gate …]: the
 * proxy's judgement over recorded traffic, with the same reports and exit codes. Every way it
 * ends writes the three reports (a usage error or an unreadable file with result "error" and
 * why); SIGINT or SIGTERM stops the judging, writes what was judged with result "incomplete",
 * and exits 130 or 143, as a run of the suite does.
 */
import { readFile } from "node:fs/promises";
import { Redactor } from "../http/redact.ts";
import { HarError, readHar } from "./har.ts";
import { violationLine } from "./proxy/command.ts";
import { createTrafficJudge, trafficExitCode } from "./judge.ts";
import { TRAFFIC_JUDGE_FLAGS } from "./judge-flags.ts";
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
import { listenForStop, SIGNAL_EXIT_CODES, type StopSignal } from "../runner/interruption.ts";
import type { TrafficReport } from "./judge.ts";
import { writeStoppedTrafficReports } from "./stopped-report.ts";
import { trafficSummaryLines, writeTrafficReports } from "./reports.ts";
import type { ObservedExchange } from "./exchange.ts";

const FLAGS = {
  reportDir: {
    name: "report-dir",
    value: "DIR",
    help: "where conformance.json, junit.xml and report.html go (default reports)",
    parser: stringFlag("reports"),
  },
  strict: { name: "strict", help: "a broken SHOULD fails too", parser: switchFlag() },
  ...TRAFFIC_JUDGE_FLAGS,
  help: { name: "help", help: "show this help", parser: switchFlag() },
} satisfies FlagTable;

const JUDGE_USAGE = `Usage: agent-conformance judge FILE.har [FILE.har …] [--report-dir DIR] [--strict] [--settle-ms N] [--gate G]
       (in this repository: npm run conformance -- judge FILE.har …)

Judges recorded traffic (HAR 1.2, as browsers, Playwright's recordHar and mitmproxy export
it) as the proxy judges live traffic, and writes the same reports.

${flagHelp(FLAGS, { helpAt: 26 })}

Exit codes: 0 no gated MUST broken; 1 a gated MUST broken (or a SHOULD under --strict); 2 usage
error, an unreadable file, or nothing was judged (no answered exchange of the spec in the files);
3 none broken, but a gated verdict held back for listing lag was never decided; 130 or 143
stopped by SIGINT or SIGTERM (the reports hold what was judged by then). Every exit writes the
three reports.`;

/** Exchanges judged between two looks at the signals: a long recording still stops promptly. */
const EXCHANGES_PER_TURN = 100;
/** From this many exchanges on, judging takes seconds: the judge says it started. */
const LONG_TRAFFIC = 10_000;

/** What was judged before the signal, with result "incomplete": the requirements not shown say it stopped early. */
function interruptedReport(report: TrafficReport, signal: StopSignal, judged: number, total: number): TrafficReport {
  const reason = `interrupted by ${signal} after ${judged} of ${total} exchanges`;
  return {
    ...report,
    result: "incomplete",
    interrupted: { signal, reason, checks: { done: judged, total }, atOnce: false },
    requirements: report.requirements.map((r) =>
      r.status === "not_observed" ? { ...r, reason: `${reason}: ${r.reason ?? "not observed"}` } : r,
    ),
  };
}

export async function runJudgeCommand(
  argv: string[],
  print: (line: string) => void = (line) => process.stdout.write(`${line}\n`),
): Promise<number> {
  // Where the reports go even when the rest of the command line is wrong.
  const dir = flagValueOf(argv, "report-dir") ?? "reports";
  const refuse = async (target: string, reason: string, usage = ""): Promise<number> => {
    process.stderr.write(`agent-conformance judge: ${reason}\n${usage}`);
    await writeStoppedTrafficReports("judge", dir, target, reason, "har");
    return 2;
  };
  let parsed;
  try {
    parsed = parseFlags(FLAGS, argv, { positionals: true });
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    // An unknown flag is one line naming the flag meant; other mistakes come with the usage.
    return refuse("(not set up)", error.message, error instanceof UnknownFlagError ? "" : `${JUDGE_USAGE}\n`);
  }
  if (parsed.values.help) {
    print(JUDGE_USAGE);
    return 0;
  }
  // A value refused: one line, the first, without the usage.
  if (!parsed.ok) return refuse("(not set up)", parsed.problems[0] ?? "");
  const { values, positionals } = parsed;
  const { settleMs, gate } = values;
  if (positionals.length === 0) return refuse("(no HAR file)", "name at least one HAR file", `${JUDGE_USAGE}\n`);
  const target = `${positionals.length} HAR file(s): ${positionals.join(", ")}`;
  const stop = listenForStop((signal) =>
    process.stderr.write(`agent-conformance judge: ${signal}: stopping; the reports hold what was judged so far\n`),
  );
  try {
    const exchanges: ObservedExchange[] = [];
    for (const file of positionals) {
      try {
        exchanges.push(...readHar(await readFile(file, "utf8"), file, exchanges.length));
      } catch (error) {
        const reason =
          error instanceof HarError
            ? error.message
            : `${file} cannot be read: ${error instanceof Error ? error.message : String(error)}`;
        return await refuse(target, reason);
      }
    }
    const judge = createTrafficJudge({
      target,
      redactor: new Redactor([]),
      strict: values.strict,
      settleMs,
      gate,
      source: "har",
    });
    // Several files are one traffic, judged and numbered in the order the exchanges started, as the proxy numbers them.
    const traffic = exchanges
      .sort((a, b) => a.startedAt - b.startedAt || a.sequence - b.sequence)
      .map((exchange, sequence) => ({ ...exchange, sequence }));
    // A long recording says it is being judged, and how to stop.
    if (traffic.length >= LONG_TRAFFIC)
      process.stderr.write(
        `agent-conformance judge: judging ${traffic.length} exchanges; Ctrl-C stops and writes what was judged by then\n`,
      );
    let judged = 0;
    for (const exchange of traffic) {
      // Signals are handled between turns of the event loop: give them one now and then.
      if (judged % EXCHANGES_PER_TURN === 0) await new Promise((resolve) => setImmediate(resolve));
      if (stop.signal !== undefined) break;
      for (const violation of judge.observe(exchange)) print(violationLine(violation));
      judged++;
    }
    if (stop.signal === undefined) for (const violation of judge.finish()) print(violationLine(violation));
    const signal = stop.signal;
    const report =
      signal === undefined ? judge.report() : interruptedReport(judge.report(), signal, judged, traffic.length);
    await writeTrafficReports(report, values.reportDir);
    for (const line of trafficSummaryLines(report, values.reportDir)) print(line);
    if (report.interrupted !== undefined) print(`Interrupted: ${report.interrupted.reason}`);
    if (report.result === "error")
      process.stderr.write(
        `agent-conformance judge: ${positionals.join(", ")}: ${report.diagnosis ?? "nothing was judged"}\n`,
      );
    return signal === undefined ? trafficExitCode(report) : SIGNAL_EXIT_CODES[signal];
  } finally {
    stop.dispose();
  }
}
