import { createHash } from "node:crypto";
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { renderCoverage } from "./coverage-table.ts";
import type { ConformanceReport } from "./report-types.ts";
import { renderFamilies } from "./requirement-rows.ts";
import { SafeHtml, html } from "./safe-html.ts";
import { REPORT_CSS } from "./styles.ts";
import { renderSummary } from "./summary.ts";

/**
 * The page allows nothing but its own inline stylesheet (by hash): no scripts, no fetches,
 * no images, no fonts. Escaping already keeps report data inert; this makes sure of it.
 */
const CSP = `default-src 'none'; style-src 'sha256-${createHash("sha256").update(REPORT_CSS).digest("base64")}'; base-uri 'none'; form-action 'none'`;

function renderFilter(report: ConformanceReport): SafeHtml {
  const attention = report.counts.fail + report.counts.warn;
  return html`<fieldset class="filter"><legend>Show</legend>
<label><input type="radio" name="filter" id="show-all" checked> All requirements</label>
<label><input type="radio" name="filter" id="show-failures"> Failures only (fail and warn)</label>
</fieldset>
${attention ? null : html`<p class="only-filtered" id="no-failures">No requirement failed or warned.</p>`}`;
}

/**
 * One self-contained HTML page (inline CSS, no scripts, no network) titled by a run's result and
 * target: the frame of the suite's report and of the traffic judge's.
 */
export function reportPage(run: { readonly result: string; readonly target: string }, body: SafeHtml): string {
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${CSP}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Conformance ${run.result.toUpperCase()}: ${run.target}</title>
<style>${new SafeHtml(REPORT_CSS)}</style>
</head>
<body>
${body}
</body>
</html>
`.value;
}

/** Writes a page as `dir/report.html` (creating `dir`) and returns its path. */
export async function writeReportPage(page: string, dir: string): Promise<string> {
  await mkdir(dir, { recursive: true });
  const path = join(dir, "report.html");
  await writeFile(path, page);
  return path;
}

/** The page of a conformance run. */
export function renderHtmlReport(report: ConformanceReport): string {
  return reportPage(
    report,
    html`${renderSummary(report)}
${renderFilter(report)}
<main>
${report.requirements.length ? renderFamilies(report.requirements) : html`<p>No requirements were reported.</p>`}
</main>
${renderCoverage(report.interactions)}`,
  );
}

/** Writes `dir/report.html` (creating `dir`) and returns its path. */
export function writeHtmlReport(report: ConformanceReport, dir: string): Promise<string> {
  return writeReportPage(renderHtmlReport(report), dir);
}
