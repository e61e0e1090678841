/**
 * The traffic judge's reports, in the suite's formats: conformance.json and report.html from the
 * suite's own writers, and JUnit XML with one test case per requirement (not_observed as skipped).
 */
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { ConformanceReport } from "../harness/report-types.ts";
import { writeHtmlReport } from "../report/html.ts";
import { writeReport } from "../runner/conformance-reporter.ts";

const xml = (text: string) =>
  text.replace(/[^\x09\x0a\x0d\x20-\ud7ff\ue000-\ufffd]/gu, "\ufffd").replace(/[<>&"']/g, (c) => `&${{ "<": "lt", ">": "gt", "&": "amp", '"': "quot", "'": "apos" }[c]};`);

export function junitXml(report: ConformanceReport): string {
  const cases = report.requirements.map((r) => {
    const name = xml(`[${r.id}] ${r.summary}`);
    const open = `    <testcase classname="${xml(r.family)}" name="${name}" time="0">`;
    if (r.status === "fail") return `${open}<failure message="${xml((r.reason ?? "").split("\n")[0] ?? "")}">${xml(r.tests[0]?.message ?? r.reason ?? "")}</failure></testcase>`;
    if (r.status === "warn") return `${open}<system-out>${xml(`warning (SHOULD): ${r.reason ?? ""}`)}</system-out></testcase>`;
    if (r.status === "not_observed") return `${open}<skipped message="${xml(`not observed: ${r.reason ?? ""}`)}"/></testcase>`;
    return `${open}</testcase>`;
  });
  const failures = report.requirements.filter((r) => r.status === "fail").length;
  const skipped = report.requirements.filter((r) => r.status === "not_observed").length;
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="agent-conformance traffic" tests="${cases.length}" failures="${failures}" skipped="${skipped}">`,
    `  <testsuite name="${xml(report.target)}" tests="${cases.length}" failures="${failures}" skipped="${skipped}" timestamp="${report.startedAt}">`,
    ...cases,
    "  </testsuite>",
    "</testsuites>",
    "",
  ].join("\n");
}

export async function writeTrafficReports(report: ConformanceReport, dir: string): Promise<void> {
  await mkdir(dir, { recursive: true });
  await writeReport(join(dir, "conformance.json"), report);
  await writeFile(join(dir, "junit.xml"), junitXml(report));
  await writeHtmlReport(report, dir);
}

/** The console's closing lines: counts, and each broken requirement with its first violation. */
export function trafficSummaryLines(report: ConformanceReport, { judged, unread }: { judged: number; unread: number }, dir: string): string[] {
  const { counts } = report;
  const lines = report.requirements
    .filter((r) => r.status === "fail" || r.status === "warn")
    .map((r) => `  ${r.status.toUpperCase()} ${r.id} ${r.level}: ${r.reason ?? ""}`.split("\n")[0] ?? "");
  return [
    ...lines,
    `Result: ${report.result.toUpperCase()} — ${counts.pass} pass, ${counts.fail} fail, ${counts.warn} warn, ${counts.not_observed ?? 0} not observed; ${judged} exchange(s) judged`,
    ...(unread > 0 ? [`${unread} exchange(s) not judged: a body was not recorded, or is in a content coding that could not be read`] : []),
    `Reports: ${dir}`,
  ];
}
