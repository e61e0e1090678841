/**
 * junit.xml carries what conformance.json says, for CI views that read only JUnit: vitest writes
 * a skipped test as a bare <skipped/>, so each skipped or inconclusive test gets its reason, and
 * every MUST the run left unjudged (without the user excluding it) is one more skipped test case
 * in a suite of its own. A run that stopped before any check gets a JUnit file with its diagnosis.
 */

import { readFile, writeFile, mkdir } from "node:fs/promises";
import { dirname } from "node:path";
import type { ConformanceReport, TestReport } from "../report/report-types.ts";

const ENTITIES: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&apos;" };

/** Escapes text for an attribute or element, and replaces characters XML 1.0 cannot hold. */
export function xmlText(text: string): string {
  return text
    .replace(/[^\x09\x0a\x0d\x20-\ud7ff\ue000-\ufffd]/gu, "\ufffd")
    .replace(/[<>&"']/g, (c) => ENTITIES[c] ?? c);
}

function unescapeXml(text: string): string {
  return text.replace(
    /&(amp|lt|gt|quot|apos);/g,
    (_, name: string) => ({ amp: "&", lt: "<", gt: ">", quot: '"', apos: "'" })[name] ?? "",
  );
}

/** Junit messages are one line: CI views show the attribute, not a block. */
const oneLine = (text: string) => text.replace(/\s*\n\s*/g, " ");

function unjudgedTests(report: ConformanceReport): Map<string, TestReport> {
  const byName = new Map<string, TestReport>();
  for (const requirement of report.requirements) {
    for (const test of requirement.tests) {
      if (test.status === "skip" || test.status === "inconclusive") byName.set(test.name, test);
    }
  }
  return byName;
}

function skipReason(test: TestReport): string {
  const reason = test.message ?? "skipped";
  return oneLine(test.status === "inconclusive" ? `inconclusive: ${reason}` : reason);
}

export function notJudgedSuite(report: ConformanceReport): string {
  if (report.incomplete.length === 0) return "";
  const cases = report.incomplete.map((r) => {
    const summary = report.requirements.find((x) => x.id === r.id)?.summary ?? "";
    const message = oneLine(`${r.id} ${r.status === "inconclusive" ? "inconclusive" : "skipped"}: ${r.reason}`);
    return (
      `        <testcase classname="not judged" name="${xmlText(`[${r.id}] MUST ${summary}`)}" time="0">\n` +
      `            <skipped message="${xmlText(message)}"/>\n        </testcase>\n`
    );
  });
  const n = report.incomplete.length;
  return `    <testsuite name="MUST requirements not judged" tests="${n}" failures="0" errors="0" skipped="${n}" time="0">\n${cases.join("")}    </testsuite>\n`;
}

/** vitest's JUnit text with the report's reasons for every unjudged test and MUST. */
export function withVerdicts(xml: string, report: ConformanceReport): string {
  const unjudged = unjudgedTests(report);
  const annotated = xml.replace(
    /(<testcase\b[^>]*\bname="([^"]*)"[^>]*>)([\s\S]*?)(<\/testcase>)/g,
    (whole, open: string, name: string, body: string, close: string) => {
      const test = unjudged.get(unescapeXml(name));
      if (test === undefined) return whole;
      const skipped = `<skipped message="${xmlText(skipReason(test))}"/>`;
      const replaced = body.includes("<skipped/>")
        ? body.replace("<skipped/>", skipped)
        : `\n            ${skipped}${body}`;
      return `${open}${replaced}${close}`;
    },
  );
  const extra = notJudgedSuite(report);
  if (extra === "") return annotated;
  const withCount = annotated.replace(
    /<testsuites\b([^>]*)\btests="(\d+)"/,
    (_, before: string, n: string) => `<testsuites${before}tests="${Number(n) + report.incomplete.length}"`,
  );
  return withCount.includes("</testsuites>")
    ? withCount.replace(/<\/testsuites>\s*$/, `${extra}</testsuites>\n`)
    : `${withCount}${extra}`;
}

/** Rewrites report-dir/junit.xml with the report's reasons; a missing file is left missing. */
export async function addVerdictsToJunit(path: string, report: ConformanceReport): Promise<void> {
  let xml: string;
  try {
    xml = await readFile(path, "utf8");
  } catch {
    return;
  }
  await writeFile(path, withVerdicts(xml, report));
}

/** The JUnit file of a run that stopped before any check: one errored test case with the diagnosis. */
export function errorJunit(diagnosis: string, target: string): string {
  const message = xmlText(oneLine(diagnosis));
  return [
    '<?xml version="1.0" encoding="UTF-8" ?>',
    '<testsuites name="conformance" tests="1" failures="0" errors="1" time="0">',
    `    <testsuite name="${xmlText(target)}" tests="1" failures="0" errors="1" skipped="0" time="0">`,
    `        <testcase classname="agent-conformance" name="the run could be set up" time="0">`,
    `            <error message="${message}">${xmlText(diagnosis)}</error>`,
    "        </testcase>",
    "    </testsuite>",
    "</testsuites>",
    "",
  ].join("\n");
}

export async function writeErrorJunit(path: string, diagnosis: string, target: string): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  await writeFile(path, errorJunit(diagnosis, target));
}
