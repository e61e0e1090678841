/**
 * The reports of a traffic command (proxy, judge) that stopped before judging anything: a usage
 * error, a file it could not read or write, a port it could not listen on. Result "error" and
 * why, in the same three formats, so a CI step that uploads the reports finds the reason.
 */
import { Redactor } from "../http/redact.ts";
import { createTrafficJudge, type TrafficReport } from "./judge.ts";
import { writeTrafficReports } from "./reports.ts";
import type { TrafficSource } from "./nothing-judged.ts";

export function stoppedTrafficReport(target: string, reason: string, source: TrafficSource): TrafficReport {
  const report = createTrafficJudge({ target, redactor: new Redactor([]), source }).report();
  return { ...report, result: "error", diagnosis: reason };
}

/** Writes them; says on stderr, and nowhere else, when even that failed. */
export async function writeStoppedTrafficReports(
  command: string,
  dir: string,
  target: string,
  reason: string,
  source: TrafficSource,
): Promise<void> {
  try {
    await writeTrafficReports(stoppedTrafficReport(target, `${command}: ${reason}`, source), dir);
  } catch (error) {
    process.stderr.write(
      `agent-conformance ${command}: the reports were not written to ${dir}: ${error instanceof Error ? error.message : String(error)}\n`,
    );
  }
}
