import type { ConformanceReport } from "./report-types.ts";
import { coverageFigures } from "./coverage-table.ts";
import { count, formatDuration } from "./format.ts";
import { html, type SafeHtml } from "./safe-html.ts";

/** The banner's colours: an error is as red as a failure, an incomplete run as amber as an inconclusive check. */
const BANNER_CLASS: Record<ConformanceReport["result"], string> = {
  pass: "pass",
  fail: "fail",
  error: "fail",
  incomplete: "inconclusive",
};

function verdict(report: ConformanceReport): string {
  const { fail, warn } = report.counts;
  switch (report.result) {
    case "incomplete":
      if (report.interrupted !== undefined)
        return `The run was ${report.interrupted.reason}${report.interrupted.atOnce ? ", and stopped at once" : ""}: what it had not judged by then is not judged.`;
      return `No MUST failed, but ${count(report.incomplete.length, "MUST requirement")} could not be judged: the run is incomplete.`;
    case "pass":
      // A run with nothing to do (--rerun-failed found nothing) says why.
      if (report.diagnosis !== undefined) return report.diagnosis;
      return warn
        ? `Every MUST passed; ${warn} SHOULD warned.`
        : "Every requirement passed or was skipped with a reason.";
    case "error":
      if (report.diagnosis !== undefined) return `The run stopped before any check: ${report.diagnosis}`;
      return report.harnessErrors.length ? "The harness could not complete the run." : "No check was executed.";
    case "fail":
      return fail
        ? `${count(fail, "requirement")} failed${report.strict ? " (strict: SHOULD failures count)" : ""}.`
        : "The run failed.";
  }
}

/** Every MUST the run could not judge, and why: a gate must not read them as passed. */
function incompleteNote(report: ConformanceReport): SafeHtml | null {
  if (!report.incomplete.length) return null;
  return html`<div class="alert incomplete" id="incomplete"><h3>Not judged</h3>
<p>These MUST requirements were skipped or inconclusive, and you did not exclude them:</p>
<ul>${report.incomplete.map((r) => html`<li><a href="#req-${r.id}">${r.id}</a> ${r.status}: ${r.reason}</li>`)}</ul></div>`;
}

function cleanupNote(report: ConformanceReport): SafeHtml | null {
  const { failed } = report.cleanup;
  const notFound = report.cleanup.notFound ?? [];
  if (!failed.length && !notFound.length) return null;
  return html`<div class="alert cleanup"><h3>Cleanup problems</h3>
${
  failed.length
    ? html`<p>${count(failed.length, "conversation")} created by this run could not be deleted (not a conformance verdict).</p>
<ul>${failed.map((f) => html`<li><code>${f.conversationId}</code>: ${f.reason}</li>`)}</ul>`
    : null
}
${
  notFound.length
    ? html`<p>${count(notFound.length, "conversation")} created by this run were not found at cleanup: DELETE as the owner answered 404, though no check had deleted them (state not shared between replicas?).</p>
<ul>${notFound.map((id) => html`<li><code>${id}</code>: not found at cleanup</li>`)}</ul>`
    : null
}</div>`;
}

function harnessNote(report: ConformanceReport): SafeHtml | null {
  if (!report.harnessErrors.length) return null;
  return html`<div class="alert harness"><h3>Harness errors</h3>
<p>Failures of the test engine itself, not of the target.</p>
<ul>${report.harnessErrors.map((e) => html`<li><pre>${e}</pre></li>`)}</ul></div>`;
}

function baselineNote(report: ConformanceReport): SafeHtml | null {
  const { baseline } = report;
  if (baseline === undefined) return null;
  const accepted = baseline.baselined.length
    ? html`<p>Known failures accepted by the baseline: ${baseline.baselined.map((id, i) => html`${i ? ", " : ""}<a href="#req-${id}">${id}</a>`)}.</p>`
    : html`<p>No failure needed the baseline.</p>`;
  const problems = baseline.problems.length
    ? html`<p>Baseline problems (each fails the run):</p><ul>${baseline.problems.map((p) => html`<li>${p}</li>`)}</ul>`
    : null;
  return html`<div class="alert baseline" id="baseline"><h3>Baseline <code>${baseline.file}</code></h3>${accepted}${problems}</div>`;
}

export function renderSummary(report: ConformanceReport): SafeHtml {
  const { counts, creates, cleanup } = report;
  const banner = BANNER_CLASS[report.result];
  return html`<header>
<h1>Conformance report</h1>
<div class="banner ${banner}" role="status" id="result"><strong>${report.result.toUpperCase()}</strong><span>${verdict(report)}</span></div>
<dl class="facts">
<dt>Target</dt><dd>${report.target}</dd>
<dt>Requirements</dt><dd><ul class="counts" id="counts">
<li class="badge pass">${counts.pass} passed</li><li class="badge fail">${counts.fail} failed</li><li class="badge warn">${counts.warn} warned</li><li class="badge skip">${counts.skip} skipped</li><li class="badge inconclusive">${counts.inconclusive} inconclusive</li></ul></dd>
<dt>Tests</dt><dd>${counts.tests}</dd>
<dt>Creates</dt><dd>${creates.spent} spent of a budget of ${creates.budget}</dd>
<dt>Run id</dt><dd><code>${report.runId}</code></dd>
<dt>Seed</dt><dd><code>${report.seed}</code></dd>
<dt>Started</dt><dd><time datetime="${report.startedAt}">${report.startedAt}</time></dd>
<dt>Duration</dt><dd>${formatDuration(report.durationMs)}</dd>
<dt>Strict</dt><dd>${report.strict ? "yes: SHOULD failures fail the run" : "no: SHOULD failures are warnings"}</dd>
${report.interactions === undefined ? null : html`<dt>Interactions</dt><dd><a href="#interactions">${coverageFigures(report.interactions)}</a></dd>`}
<dt>Cleanup</dt><dd>${count(cleanup.deleted, "conversation")} deleted${cleanup.failed.length ? `, ${cleanup.failed.length} could not be deleted` : ""}${cleanup.notFound?.length ? `, ${cleanup.notFound.length} not found at cleanup` : ""}</dd>
</dl>
${incompleteNote(report)}
${baselineNote(report)}
${cleanupNote(report)}
${harnessNote(report)}
</header>`;
}
