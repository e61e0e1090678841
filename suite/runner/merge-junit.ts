/**
 * junit.xml of a merged run, from the shards' own (vitest's JUnit with the verdicts added): each
 * test suite named after its shard, with the test cases that shard judged; a check no shard
 * judged (left out by --only, another profile) once, from the first shard that lists it; failures
 * and errors always. The shards' "MUST requirements not judged" suites give way to the whole's.
 */
import type { ConformanceReport } from "../report/report-types.ts";
import { notJudgedSuite, xmlText } from "./junit-verdicts.ts";

export interface ShardJunit {
  /** "shard 2/4". */
  readonly label: string;
  /** The shard's junit.xml; undefined when it left none. */
  readonly xml: string | undefined;
  readonly report: ConformanceReport;
}

const SUITE = /<testsuite\b([^>]*?)(?:\/>|>([\s\S]*?)<\/testsuite>)/g;
const CASE = /<testcase\b[^>]*?\bname="([^"]*)"[^>]*?(?:\/>|>[\s\S]*?<\/testcase>)/g;
const NOT_JUDGED = "MUST requirements not judged";

function attribute(attributes: string, name: string): string | undefined {
  return new RegExp(`\\b${name}="([^"]*)"`).exec(attributes)?.[1];
}

function withAttribute(attributes: string, name: string, value: string): string {
  return new RegExp(`\\b${name}="[^"]*"`).test(attributes)
    ? attributes.replace(new RegExp(`\\b${name}="[^"]*"`), `${name}="${value}"`)
    : `${attributes} ${name}="${value}"`;
}

/** The test names a shard's report files under its requirements: what that shard judged. */
const judgedIn = (report: ConformanceReport) => new Set(report.requirements.flatMap((r) => r.tests.map((t) => t.name)));

const unescape = (text: string) =>
  text.replace(
    /&(amp|lt|gt|quot|apos);/g,
    (_, name: string) => ({ amp: "&", lt: "<", gt: ">", quot: '"', apos: "'" })[name] ?? "",
  );

export function mergeJunit(shards: readonly ShardJunit[], merged: ConformanceReport): string {
  const judged = shards.map((s) => judgedIn(s.report));
  const anyJudged = new Set(judged.flatMap((names) => [...names]));
  const seen = new Set<string>();
  const suites: string[] = [];
  let tests = 0;
  let failures = 0;
  let errors = 0;
  shards.forEach((shard, i) => {
    for (const [, attributes = "", body = ""] of (shard.xml ?? "").matchAll(SUITE)) {
      if (attribute(attributes, "name") === NOT_JUDGED) continue;
      const cases = [...body.matchAll(CASE)]
        .map(([text, name = ""]) => ({ text, name: unescape(name) }))
        .filter(({ text, name }) => {
          if (/<(failure|error)\b/.test(text) || judged[i]?.has(name)) return true;
          if (anyJudged.has(name) || seen.has(name)) return false;
          seen.add(name);
          return true;
        });
      if (cases.length === 0) continue;
      const count = (pattern: RegExp) => cases.filter((c) => pattern.test(c.text)).length;
      const [f, e, s] = [count(/<failure\b/), count(/<error\b/), count(/<skipped\b/)];
      tests += cases.length;
      failures += f;
      errors += e;
      let header = withAttribute(
        attributes,
        "name",
        xmlText(`${shard.label}: ${unescape(attribute(attributes, "name") ?? "")}`),
      );
      for (const [name, value] of [
        ["tests", cases.length],
        ["failures", f],
        ["errors", e],
        ["skipped", s],
      ] as const)
        header = withAttribute(header, name, String(value));
      suites.push(`    <testsuite${header}>\n${cases.map((c) => `        ${c.text}`).join("\n")}\n    </testsuite>\n`);
    }
  });
  const notJudged = notJudgedSuite(merged);
  tests += merged.incomplete.length;
  return [
    '<?xml version="1.0" encoding="UTF-8" ?>\n',
    `<testsuites name="conformance" tests="${tests}" failures="${failures}" errors="${errors}" time="${(merged.durationMs / 1000).toFixed(3)}">\n`,
    ...suites,
    notJudged,
    "</testsuites>\n",
  ].join("");
}
