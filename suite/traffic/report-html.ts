/**
 * report.html of a traffic run: the suite's page (its stylesheet and requirement rows), with a
 * header that says what a passive run is about: exchanges judged and not judged, the service's
 * and the client's verdicts apart, the gate, the not-observed count, and each verdict held back
 * for listing lag that nothing decided, with its exchanges. Creates, a seed and cleanup belong to
 * active runs and are not shown.
 */
import { formatDuration } from "../report/format.ts";
import { reportPage, writeReportPage } from "../report/html.ts";
import { renderFamilies } from "../report/requirement-rows.ts";
import { html, type SafeHtml } from "../report/safe-html.ts";
import type { PartyVerdict } from "./gate.ts";
import type { TrafficReport } from "./judge.ts";
import { undecidedLine } from "./requirement-report.ts";

function headline(report: TrafficReport): string {
  const { traffic } = report;
  if (report.result === "error") return report.diagnosis ?? "nothing was judged";
  const gated = traffic.gate === "both" ? "the service's and the client's verdicts" : `the ${traffic.gate}'s verdict`;
  if (report.result === "incomplete")
    return `No requirement failed in ${gated}, but a verdict held back for listing lag was never decided (--gate ${traffic.gate}).`;
  return report.result === "fail"
    ? `A requirement failed in ${gated} (--gate ${traffic.gate}).`
    : `No requirement failed in ${gated} (--gate ${traffic.gate}).`;
}

function verdictLine(verdict: PartyVerdict, gated: boolean): SafeHtml {
  return html`<strong>${verdict.result.toUpperCase().replace("_", " ")}</strong>${gated ? "" : " (not gated)"}:
${verdict.pass} passed, ${verdict.fail} failed, ${verdict.warn} warned, ${verdict.inconclusive > 0 ? `${verdict.inconclusive} undecided, ` : ""}${verdict.not_observed} not observed`;
}

function renderHeader(report: TrafficReport): SafeHtml {
  const { traffic } = report;
  const { exchanges } = traffic;
  const gates = (party: "service" | "client") => traffic.gate === party || traffic.gate === "both";
  return html`<header>
<h1>Conformance report: observed traffic</h1>
<div class="banner ${report.result === "pass" ? "pass" : report.result === "incomplete" ? "inconclusive" : "fail"}" role="status" id="result"><strong>${report.result.toUpperCase()}</strong><span>${headline(report)}</span></div>
<dl class="facts" id="traffic-facts">
<dt>Traffic</dt><dd>${report.target}</dd>
<dt>Exchanges judged</dt><dd id="exchanges-judged">${exchanges.judged} of ${exchanges.seen} seen</dd>
${exchanges.unanswered > 0 ? html`<dt>Not answered</dt><dd id="exchanges-unanswered">${exchanges.unanswered} (no answer came: not judged)</dd>` : null}
${exchanges.unread > 0 ? html`<dt>Not readable</dt><dd id="exchanges-unread">${exchanges.unread} (a body not recorded or in a coding that could not be read: not judged)</dd>` : null}
${exchanges.incomplete > 0 ? html`<dt>Incomplete</dt><dd id="exchanges-incomplete">${exchanges.incomplete} (cut before they ended: judged as far as they went, their outcome unknown)</dd>` : null}
<dt>Service</dt><dd id="service-verdict">${verdictLine(traffic.service, gates("service"))}</dd>
<dt>Client</dt><dd id="client-verdict">${verdictLine(traffic.client, gates("client"))}</dd>
<dt>Gate</dt><dd>${traffic.gate}</dd>
${traffic.undecided.length > 0 ? html`<dt>Undecided</dt><dd id="undecided"><ul>${traffic.undecided.map((u) => html`<li><strong>${u.requirement}</strong> ${undecidedLine(u)}</li>`)}</ul></dd>` : null}
<dt>Not observed</dt><dd id="not-observed">${traffic.service.not_observed + traffic.client.not_observed} requirement(s) no observed exchange could show</dd>
<dt>Started</dt><dd><time datetime="${report.startedAt}">${report.startedAt}</time></dd>
<dt>Duration</dt><dd>${formatDuration(report.durationMs)}</dd>
<dt>Strict</dt><dd>${report.strict ? "yes: SHOULD failures fail" : "no: SHOULD failures are warnings"}</dd>
</dl>
</header>`;
}

export function renderTrafficHtml(report: TrafficReport): string {
  return reportPage(
    report,
    html`${renderHeader(report)}
<main>
${renderFamilies(report.requirements)}
</main>`,
  );
}

export async function writeTrafficHtml(report: TrafficReport, dir: string): Promise<void> {
  await writeReportPage(renderTrafficHtml(report), dir);
}
