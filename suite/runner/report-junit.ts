/**
 * junit.xml from conformance.json alone, for a run that ended without vitest's own file: one
 * stopped at once by a second signal, or stopped before its first check.
 */
import type { ConformanceReport } from "../report/report-types.ts";
import { notJudgedSuite, xmlText } from "./junit-verdicts.ts";

/** One test case per check the report holds (failures, skips and inconclusive ones with their reasons), and the MUSTs not judged. */
export function junitOfReport(report: ConformanceReport): string {
  const seen = new Map<string, ConformanceReport["requirements"][number]["tests"][number]>();
  for (const requirement of report.requirements)
    for (const test of requirement.tests) if (!seen.has(test.name)) seen.set(test.name, test);
  const oneLine = (text: string) => text.replace(/\s*\n\s*/g, " ");
  const cases = [...seen.values()].map((test) => {
    const open = `        <testcase classname="${xmlText(test.file)}" name="${xmlText(test.name)}" time="${(test.durationMs / 1000).toFixed(3)}">`;
    const message = oneLine(test.message ?? "");
    if (test.status === "fail")
      return `${open}\n            <failure message="${xmlText(message)}">${xmlText(test.message ?? "")}</failure>\n        </testcase>\n`;
    if (test.status === "skip" || test.status === "inconclusive") {
      return `${open}\n            <skipped message="${xmlText(test.status === "inconclusive" ? `inconclusive: ${message}` : message)}"/>\n        </testcase>\n`;
    }
    return `${open}</testcase>\n`;
  });
  const tests = [...seen.values()];
  const count = (status: string) => tests.filter((t) => t.status === status).length;
  const skipped = count("skip") + count("inconclusive");
  const unjudged = notJudgedSuite(report);
  return [
    '<?xml version="1.0" encoding="UTF-8" ?>\n',
    `<testsuites name="conformance" tests="${tests.length + report.incomplete.length}" failures="${count("fail")}" errors="0" time="${(report.durationMs / 1000).toFixed(3)}">\n`,
    `    <testsuite name="${xmlText(`${report.interrupted?.reason ?? report.diagnosis ?? "conformance"}: ${report.target}`)}" tests="${tests.length}" failures="${count("fail")}" errors="0" skipped="${skipped}" time="${(report.durationMs / 1000).toFixed(3)}">\n`,
    ...cases,
    "    </testsuite>\n",
    unjudged,
    "</testsuites>\n",
  ].join("");
}
