/**
 * The lines printed at the end of a run: one per family of checks (the progress's list), then
 * every failed or warned requirement with its spec sentence, the failure and the exchange that
 * showed it.
 */

import type { ConformanceReport, RequirementStatus, TestReport } from "../report/report-types.ts";
import type { Transcript } from "../http/types.ts";
import { formatTranscript } from "../http/transcript.ts";
import { coverageLine } from "../interactions/coverage.ts";
import { byFamilyOrder, familyOfCheckFile } from "./check-order.ts";
import { tallyLine } from "./progress.ts";

const STATUSES: RequirementStatus[] = ["pass", "fail", "warn", "skip", "inconclusive"];
/** Console evidence stays short; conformance.json and report.html hold the rest. */
const MESSAGE_LINES = 30;

/** A counterexample's replay command: printed whole however long the history above it. */
const REPLAY_LINE = /^\s*replay: /;

function clip(text: string, lines = MESSAGE_LINES): string {
  const all = text.split("\n");
  if (all.length <= lines) return text;
  const kept = all.slice(lines).filter((line) => REPLAY_LINE.test(line));
  return [
    ...all.slice(0, lines),
    `… (${all.length - lines - kept.length} more lines in conformance.json)`,
    ...kept,
  ].join("\n");
}

function indent(text: string, prefix = "    "): string {
  return text
    .split("\n")
    .map((line) => `${prefix}${line}`)
    .join("\n");
}

/**
 * One line per family of checks: the console's one list, in the progress's order and counted as
 * the progress counted it (its last line for the family comes first, in checks), then, labelled,
 * the requirements those checks judge, by verdict. A requirement several families judge (the
 * interaction property judges requirements of every family) counts in each; the Result line
 * counts each requirement once.
 */
export function familyLines(report: ConformanceReport): string[] {
  const tests = new Map<string, { family: string; status: TestReport["status"] }>();
  const judgedBy = new Map<string, Set<string>>();
  for (const r of report.requirements) {
    for (const t of r.tests) {
      const family = familyOfCheckFile(t.file);
      tests.set(`${t.file}\n${t.name}`, { family, status: t.status });
      judgedBy.set(family, (judgedBy.get(family) ?? new Set()).add(r.id));
    }
  }
  const families = [...judgedBy.keys()].sort(byFamilyOrder);
  const width = Math.max(0, ...families.map((f) => f.length));
  const rows = families.map((family) => {
    const own = [...tests.values()].filter((t) => t.family === family);
    const count = (status: TestReport["status"]) => own.filter((t) => t.status === status).length;
    const checks = tallyLine(
      {
        family,
        total: own.length,
        passed: count("pass"),
        failed: count("fail"),
        skipped: count("skip"),
        inconclusive: count("inconclusive"),
      },
      width,
    );
    const ids = judgedBy.get(family) ?? new Set<string>();
    const judged = report.requirements.filter((r) => ids.has(r.id));
    const verdicts = STATUSES.map(
      (status) => `${String(judged.filter((r) => r.status === status).length).padStart(2)} ${status}`,
    );
    return {
      checks,
      requirements: `${String(judged.length).padStart(2)} ${judged.length === 1 ? "requirement " : "requirements"} judged: ${verdicts.join("  ")}`,
    };
  });
  const column = Math.max(0, ...rows.map((r) => r.checks.length));
  return rows.map((r) => `${r.checks.padEnd(column)}   ${r.requirements}`);
}

/** Whether a failure message already quotes this exchange (the named expectations include it). */
function quotes(message: string, transcript: Transcript): boolean {
  const request = `> ${transcript.request.method} ${transcript.request.url}`;
  const status = transcript.response === undefined ? undefined : `< ${transcript.response.status}`;
  return message.includes(request) && (status === undefined || message.includes(status));
}

export function problemLines(report: ConformanceReport): string[] {
  const lines: string[] = [];
  for (const r of report.requirements.filter((x) => x.status === "fail" || x.status === "warn")) {
    lines.push("", `${r.status.toUpperCase()} ${r.id} (${r.level}) ${r.summary}`);
    if (r.baselined === true) lines.push(`  baselined until ${r.baselineExpires ?? "?"}: ${r.baselineReason ?? ""}`);
    lines.push(`  spec: ${r.spec}`);
    const failed = r.tests.find((t) => t.status === "fail");
    if (failed !== undefined) {
      lines.push(`  check: ${failed.name}`);
      if (failed.message !== undefined) lines.push(indent(clip(failed.message)));
      const last = failed.transcripts?.at(-1);
      if (last !== undefined && !quotes(failed.message ?? "", last))
        lines.push("  exchange:", indent(clip(formatTranscript(last))));
    }
  }
  return lines;
}

/** One line per check the target made wait (retries of try-later answers, unsettled listings). */
function waitingLines(report: ConformanceReport): string[] {
  const lines: string[] = [];
  const tests = report.requirements.flatMap((r) => r.tests);
  const seen = new Set<string>();
  for (const test of tests) {
    if (test.waiting === undefined || seen.has(test.name)) continue;
    seen.add(test.name);
    const w = test.waiting;
    const parts: string[] = [];
    if (w.retries > 0) {
      const statuses = Object.entries(w.retriedStatuses)
        .map(([status, n]) => `${status}×${n}`)
        .join(", ");
      parts.push(
        `${w.retries} ${w.retries === 1 ? "retry" : "retries"} (${statuses}), ${(w.retryWaitMs / 1000).toFixed(1)} s waited`,
      );
    }
    if (w.settleReads > 0)
      parts.push(`listing settled after ${w.settleReads} more read(s), ${(w.settleWaitMs / 1000).toFixed(1)} s`);
    lines.push(`  ${test.name}: ${parts.join("; ")}`);
  }
  return lines.length > 0 ? ["The target made these checks wait (not a verdict):", ...lines, ""] : [];
}

/** Every MUST the run could not judge and did not exclude, with why: the reason for exit 3. */
function incompleteLines(report: ConformanceReport): string[] {
  if (report.incomplete.length === 0) return [];
  return [
    `Not judged: ${report.incomplete.length} MUST requirement(s) were skipped or inconclusive (exit 3 unless something failed):`,
    ...report.incomplete.map((r) => `  ${r.id} ${r.status}: ${clip(r.reason, 3).split("\n").join(" ")}`),
    "",
  ];
}

/** " (2 baselined)" when the baseline accepted failures or warnings. */
function baselinedNote(report: ConformanceReport): string {
  const n = report.baseline?.baselined.length ?? 0;
  return n > 0 ? ` (${n} baselined)` : "";
}

export function summaryLines(report: ConformanceReport, reportDir: string): string[] {
  const { counts } = report;
  const lines = [
    "",
    `Conformance of ${report.target} — run ${report.runId}, seed ${report.seed}${report.shard === undefined ? "" : `, shard ${report.shard.index}/${report.shard.count}`}`,
    ...familyLines(report),
    // What the interaction property explored, once, after the run's progress.
    ...(report.interactions === undefined ? [] : [coverageLine(report.interactions)]),
    ...problemLines(report),
    "",
  ];
  if (report.harnessErrors.length > 0) {
    lines.push(
      "Harness errors (not verdicts on the target):",
      ...report.harnessErrors.map((e) => indent(clip(e, 10), "  - ")),
      "",
    );
  }
  if (report.baseline !== undefined && report.baseline.problems.length > 0) {
    lines.push(`Baseline ${report.baseline.file}:`, ...report.baseline.problems.map((p) => `  - ${p}`), "");
  }
  lines.push(...waitingLines(report));
  if (report.cleanup.failed.length > 0) {
    lines.push(
      `Cleanup: ${report.cleanup.failed.length} conversation(s) could not be deleted:`,
      ...report.cleanup.failed.map((f) => `  - ${f.conversationId}: ${f.reason}`),
      "",
    );
  }
  const notFound = report.cleanup.notFound ?? [];
  if (notFound.length > 0) {
    lines.push(
      `Cleanup: ${notFound.length} conversation(s) this run created were not found at cleanup (DELETE as their owner answered 404; ` +
        "state not shared between replicas?):",
      ...notFound.map((id) => `  - ${id}`),
      "",
    );
  }
  lines.push(...incompleteLines(report));
  lines.push(
    `Result: ${report.result.toUpperCase()}${report.strict ? " (strict)" : ""} — ${counts.pass} pass, ${counts.fail} fail, ${counts.warn} warn, ${counts.skip} skip, ${counts.inconclusive} inconclusive${baselinedNote(report)}; ` +
      `${report.creates.spent} of ${report.creates.budget} creates; ${report.cleanup.deleted} conversation(s) cleaned up`,
    `Reports: ${reportDir}`,
  );
  return lines;
}
