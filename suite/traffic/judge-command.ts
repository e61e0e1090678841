/**
 * agent-conformance judge FILE.har [FILE.har …] [--report-dir DIR] [--strict] [--gate …]: the
 * proxy's judgement over recorded traffic, with the same reports and exit codes.
 */
import { readFile } from "node:fs/promises";
import { parseArgs } from "node:util";
import { Redactor } from "../http/redact.ts";
import { GATE_HELP, parseGate } from "./gate.ts";
import { HarError, readHar } from "./har.ts";
import { violationLine } from "./proxy/command.ts";
import { createTrafficJudge, parseSettleMs, SETTLE_MS_HELP, trafficExitCode } from "./judge.ts";
import { trafficSummaryLines, writeTrafficReports } from "./reports.ts";
import type { ObservedExchange } from "./exchange.ts";

export const JUDGE_USAGE = `Usage: agent-conformance judge FILE.har [FILE.har …] [--report-dir DIR] [--strict] [--settle-ms N] [--gate G]
       (in this repository: npm run conformance -- judge FILE.har …)

Judges recorded traffic (HAR 1.2, as browsers, Playwright's recordHar and mitmproxy export
it) as the proxy judges live traffic, and writes the same reports.

  --report-dir DIR        where conformance.json, junit.xml and report.html go (default reports)
  --strict                a broken SHOULD fails too
${GATE_HELP}
${SETTLE_MS_HELP}

Exit codes: 0 no gated MUST broken; 1 a gated MUST broken (or a SHOULD under --strict); 2 usage
error, an unreadable file, or nothing was judged (no answered exchange of the spec in the files).`;

export async function runJudgeCommand(argv: string[], print: (line: string) => void = (line) => process.stdout.write(`${line}\n`)): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      options: { "report-dir": { type: "string", default: "reports" }, strict: { type: "boolean", default: false }, "settle-ms": { type: "string" }, gate: { type: "string" }, help: { type: "boolean", default: false } },
      allowPositionals: true,
    });
  } catch (error) {
    process.stderr.write(`agent-conformance judge: ${error instanceof Error ? error.message : String(error)}\n${JUDGE_USAGE}\n`);
    return 2;
  }
  const { values, positionals } = parsed;
  if (values.help) {
    print(JUDGE_USAGE);
    return 0;
  }
  const settleMs = parseSettleMs(values["settle-ms"]);
  if (typeof settleMs === "string") {
    process.stderr.write(`agent-conformance judge: ${settleMs}\n`);
    return 2;
  }
  const gate = parseGate(values.gate);
  if (typeof gate === "object") {
    process.stderr.write(`agent-conformance judge: ${gate.error}\n`);
    return 2;
  }
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
  // Several files are one traffic: judged in the order the exchanges started.
  exchanges.sort((a, b) => a.startedAt - b.startedAt || a.sequence - b.sequence);
  for (const exchange of exchanges) for (const violation of judge.observe(exchange)) print(violationLine(violation));
  for (const violation of judge.finish()) print(violationLine(violation));
  const report = judge.report();
  await writeTrafficReports(report, values["report-dir"]);
  for (const line of trafficSummaryLines(report, values["report-dir"])) print(line);
  if (report.result === "error") process.stderr.write(`agent-conformance judge: ${positionals.join(", ")}: ${report.diagnosis ?? "nothing was judged"}\n`);
  return trafficExitCode(report);
}
