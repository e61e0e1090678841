/**
 * The traffic judge's reports, in the suite's formats: conformance.json (with the traffic
 * section: both parties' verdicts, the gate, the exchanges), report.html (report-html.ts), and
 * JUnit XML with the service and the client as two test suites, one test case per requirement
 * (not_observed and undecided as skipped, with why). A run that judged nothing writes all three
 * with its diagnosis.
 */
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { RequirementReport } from "../report/report-types.ts";
import { isClientRequirement, type PartyVerdict } from "./gate.ts";
import type { TrafficReport } from "./judge.ts";
import { undecidedLine } from "./requirement-report.ts";
import { writeTrafficHtml } from "./report-html.ts";

const xml = (text: string) =>
  text
    .replace(/[^\x09\x0a\x0d\x20-\ud7ff\ue000-\ufffd]/gu, "\ufffd")
    .replace(/[<>&"']/g, (c) => `&${{ "<": "lt", ">": "gt", "&": "amp", '"': "quot", "'": "apos" }[c]};`);

function testCase(r: RequirementReport): string {
  const open = `    <testcase classname="${xml(r.family)}" name="${xml(`[${r.id}] ${r.summary}`)}" time="0">`;
  if (r.status === "fail")
    return `${open}<failure message="${xml((r.reason ?? "").split("\n")[0] ?? "")}">${xml(r.tests[0]?.message ?? r.reason ?? "")}</failure></testcase>`;
  if (r.status === "warn")
    return `${open}<system-out>${xml(`warning (SHOULD): ${r.reason ?? ""}`)}</system-out></testcase>`;
  if (r.status === "not_observed")
    return `${open}<skipped message="${xml(`not observed: ${r.reason ?? ""}`)}"/></testcase>`;
  if (r.status === "inconclusive")
    return `${open}<skipped message="${xml((r.reason ?? "undecided").split("\n")[0] ?? "")}">${xml(r.tests[0]?.message ?? "")}</skipped></testcase>`;
  return `${open}</testcase>`;
}

function testSuite(name: string, report: TrafficReport, requirements: readonly RequirementReport[]): string[] {
  const failures = requirements.filter((r) => r.status === "fail").length;
  const skipped = requirements.filter((r) => r.status === "not_observed" || r.status === "inconclusive").length;
  return [
    `  <testsuite name="${xml(`${name}: ${report.target}`)}" tests="${requirements.length}" failures="${failures}" skipped="${skipped}" timestamp="${report.startedAt}">`,
    ...requirements.map(testCase),
    "  </testsuite>",
  ];
}

export function junitXml(report: TrafficReport): string {
  const service = report.requirements.filter((r) => !isClientRequirement(r));
  const client = report.requirements.filter(isClientRequirement);
  // Nothing judged: one errored case carries the diagnosis, so a CI summary shows why.
  const errors = report.result === "error" ? 1 : 0;
  const error =
    errors === 0
      ? []
      : [
          `  <testsuite name="${xml(`traffic: ${report.target}`)}" tests="1" failures="0" errors="1" skipped="0" timestamp="${report.startedAt}">`,
          `    <testcase classname="traffic" name="exchanges judged" time="0"><error message="${xml(report.diagnosis ?? "nothing was judged")}"/></testcase>`,
          "  </testsuite>",
        ];
  const count = (status: string) => report.requirements.filter((r) => r.status === status).length;
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="agent-conformance traffic (gate: ${report.traffic.gate})" tests="${report.requirements.length + errors}" failures="${count("fail")}" errors="${errors}" skipped="${count("not_observed") + count("inconclusive")}">`,
    ...error,
    ...testSuite("service", report, service),
    ...testSuite("client", report, client),
    "</testsuites>",
    "",
  ].join("\n");
}

export async function writeTrafficReports(report: TrafficReport, dir: string): Promise<void> {
  await mkdir(dir, { recursive: true });
  await writeFile(join(dir, "conformance.json"), `${JSON.stringify(report, null, 2)}\n`);
  await writeFile(join(dir, "junit.xml"), junitXml(report));
  await writeTrafficHtml(report, dir);
}

const verdictText = (v: PartyVerdict) =>
  `${v.result.toUpperCase().replace("_", " ")} — ${v.pass} pass, ${v.fail} fail, ${v.warn} warn, ${v.inconclusive > 0 ? `${v.inconclusive} undecided, ` : ""}${v.not_observed} not observed`;

/**
 * The console's closing lines: each broken requirement, each verdict nothing decided (with the
 * exchanges that held it), both parties' verdicts, the gated result and what went unjudged.
 */
export function trafficSummaryLines(report: TrafficReport, dir: string): string[] {
  const { traffic } = report;
  const { exchanges } = traffic;
  const lines = report.requirements
    .filter((r) => r.status === "fail" || r.status === "warn")
    .map((r) => `  ${r.status.toUpperCase()} ${r.id} ${r.level}: ${r.reason ?? ""}`.split("\n")[0] ?? "");
  const broken = new Set(
    report.requirements.filter((r) => r.status === "fail" || r.status === "warn").map((r) => r.id),
  );
  const undecided = traffic.undecided
    .filter((u) => !broken.has(u.requirement))
    .map((u) => `  UNDECIDED ${u.requirement} ${u.level}: ${undecidedLine(u)}`);
  const gated = (party: "service" | "client") =>
    traffic.gate === party || traffic.gate === "both" ? "" : ` (not gated: --gate ${traffic.gate})`;
  const result =
    report.result === "error"
      ? `Result: ERROR — ${report.diagnosis ?? "nothing was judged"}`
      : `Result: ${report.result.toUpperCase()} (--gate ${traffic.gate}) — ${exchanges.judged} exchange(s) judged${report.result === "incomplete" ? "; a gated verdict was never decided" : ""}`;
  return [
    ...lines,
    ...undecided,
    `Service: ${verdictText(traffic.service)}${gated("service")}`,
    `Client: ${verdictText(traffic.client)}${gated("client")}`,
    result,
    ...(exchanges.unanswered > 0
      ? [
          `${exchanges.unanswered} exchange(s) not judged: ${traffic.source === "proxy" ? "no answer came from the upstream (unreachable: the proxy answered 502; or the client hung up first)" : "recorded without an answer"}`,
        ]
      : []),
    ...(exchanges.unread > 0
      ? [
          `${exchanges.unread} exchange(s) not judged: a body was not recorded, or is in a content coding that could not be read`,
        ]
      : []),
    ...(exchanges.incomplete > 0
      ? [
          `${exchanges.incomplete} exchange(s) incomplete: cut before they ended (${traffic.source === "proxy" ? "still running at the stop, hung up on, or broken off upstream" : "recorded so"}); judged as far as they went, their outcome unknown`,
        ]
      : []),
    `Reports: ${dir}`,
  ];
}
