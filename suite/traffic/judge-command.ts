/**
 * agent-conformance judge FILE.har [FILE.har …] [--report-dir DIR] [--strict] [--gate …]: the
 * proxy's judgement over recorded traffic, with the same reports and exit codes.
 */
import { readFile } from "node:fs/promises";
import { Redactor } from "../http/redact.ts";
import { HarError, readHar } from "./har.ts";
import { violationLine } from "./proxy/command.ts";
import { createTrafficJudge, trafficExitCode } from "./judge.ts";
import { TRAFFIC_JUDGE_FLAGS } from "./judge-flags.ts";
import { flagHelp, parseFlags, stringFlag, switchFlag, UsageError, type FlagTable } from "../runner/cli-flags.ts";
import { trafficSummaryLines, writeTrafficReports } from "./reports.ts";
import type { ObservedExchange } from "./exchange.ts";

const FLAGS = {
  reportDir: { name: "report-dir", value: "DIR", help: "where conformance.json, junit.xml and report.html go (default reports)", parser: stringFlag("reports") },
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
3 none broken, but a gated verdict held back for listing lag was never decided.`;

export async function runJudgeCommand(argv: string[], print: (line: string) => void = (line) => process.stdout.write(`${line}\n`)): Promise<number> {
  let parsed;
  try {
    parsed = parseFlags(FLAGS, argv, { positionals: true });
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    process.stderr.write(`agent-conformance judge: ${error.message}\n${JUDGE_USAGE}\n`);
    return 2;
  }
  if (parsed.values.help) {
    print(JUDGE_USAGE);
    return 0;
  }
  if (!parsed.ok) {
    // A value refused: one line, the first, without the usage.
    process.stderr.write(`agent-conformance judge: ${parsed.problems[0]}\n`);
    return 2;
  }
  const { values, positionals } = parsed;
  const { settleMs, gate } = values;
  if (positionals.length === 0) {
    process.stderr.write(`agent-conformance judge: name at least one HAR file\n${JUDGE_USAGE}\n`);
    return 2;
  }
  const exchanges: ObservedExchange[] = [];
  for (const file of positionals) {
    try {
      exchanges.push(...readHar(await readFile(file, "utf8"), file, exchanges.length));
    } catch (error) {
      const reason = error instanceof HarError ? error.message : `${file} cannot be read: ${error instanceof Error ? error.message : String(error)}`;
      process.stderr.write(`agent-conformance judge: ${reason}\n`);
      return 2;
    }
  }
  const judge = createTrafficJudge({ target: `${positionals.length} HAR file(s): ${positionals.join(", ")}`, redactor: new Redactor([]), strict: values.strict, settleMs, gate, source: "har" });
  // Several files are one traffic, judged and numbered in the order the exchanges started, as the proxy numbers them.
  const traffic = exchanges.sort((a, b) => a.startedAt - b.startedAt || a.sequence - b.sequence).map((exchange, sequence) => ({ ...exchange, sequence }));
  for (const exchange of traffic) for (const violation of judge.observe(exchange)) print(violationLine(violation));
  for (const violation of judge.finish()) print(violationLine(violation));
  const report = judge.report();
  await writeTrafficReports(report, values.reportDir);
  for (const line of trafficSummaryLines(report, values.reportDir)) print(line);
  if (report.result === "error") process.stderr.write(`agent-conformance judge: ${positionals.join(", ")}: ${report.diagnosis ?? "nothing was judged"}\n`);
  return trafficExitCode(report);
}
