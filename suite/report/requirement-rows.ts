import type { CheckWaiting, RequirementReport, RequirementStatus, TestReport } from "./report-types.ts";
import type { Family } from "../../requirements/catalog.ts";
import { renderCounterexample } from "./counterexample-lanes.ts";
import { renderTimeline, renderTranscript } from "./evidence.ts";
import { count } from "./format.ts";
import { html, withInlineCode, type SafeHtml } from "./safe-html.ts";

const FAMILY_TITLES: Record<Family, string> = {
  auth: "Authentication",
  responses: "Create a response",
  idempotency: "Idempotency",
  streaming: "Streaming",
  listing: "Message listing",
  delete: "Delete a conversation",
  scope: "Scope",
  errors: "Errors",
  client: "Client rules",
};

const familyTitle = (family: string) => FAMILY_TITLES[family as Family] ?? family;

/** Status as text and colour together, so it reads without colour too. */
const BADGE_TEXT: Record<RequirementStatus, string> = {
  pass: "✓ PASS",
  fail: "✗ FAIL",
  warn: "! WARN",
  skip: "– SKIP",
  inconclusive: "? INCONCLUSIVE",
  not_observed: "· NOT OBSERVED",
};

const badge = (status: RequirementStatus | TestReport["status"]) =>
  html`<span class="badge ${status}">${BADGE_TEXT[status]}</span>`;

/** Failed and warned requirements open their evidence by default. */
const needsAttention = (status: RequirementStatus) =>
  status === "fail" || status === "warn" || status === "inconclusive";

/** What the target made a check wait for, in words. */
function waitingText(w: CheckWaiting): string {
  const parts: string[] = [];
  if (w.retries > 0) {
    const statuses = Object.entries(w.retriedStatuses)
      .map(([status, n]) => `${status} ×${n}`)
      .join(", ");
    parts.push(
      `Retried ${count(w.retries, "try-later answer")} (${statuses}), waiting ${(w.retryWaitMs / 1000).toFixed(1)} s.`,
    );
  }
  if (w.settleReads > 0)
    parts.push(
      `Read the listing ${w.settleReads} more time(s) over ${(w.settleWaitMs / 1000).toFixed(1)} s before it showed a finished exchange.`,
    );
  return parts.join(" ");
}

/** A message's first line: a failure's headline, whose detail the evidence below shows. */
const headline = (message: string) => message.split("\n", 1)[0] ?? "";

function renderTest(test: TestReport): SafeHtml {
  // A counterexample's message repeats its transcript, which the counterexample shows below.
  const message =
    test.message === undefined || test.counterexample === undefined ? test.message : headline(test.message);
  return html`<li class="test ${test.status}">
<div class="test-head">${badge(test.status)}<span class="name">${test.name}</span><span class="file">${test.file}</span><span class="duration">${Math.round(test.durationMs)} ms</span></div>
${message === undefined ? null : html`<pre class="message">${message}</pre>`}
${test.waiting === undefined ? null : html`<p class="waiting">${waitingText(test.waiting)}</p>`}
${(test.transcripts ?? []).map(renderTranscript)}
${(test.timelines ?? []).map(renderTimeline)}
${test.counterexample === undefined ? null : renderCounterexample(test.counterexample)}
</li>`;
}

const REASON_LABEL: Record<RequirementStatus, string> = {
  pass: "Reason: ",
  fail: "Reason: ",
  warn: "Reason: ",
  skip: "Skipped: ",
  inconclusive: "Inconclusive: ",
  not_observed: "Not observed: ",
};

function testsSummary(tests: readonly TestReport[]): string {
  const failed = tests.filter((t) => t.status === "fail").length;
  const skipped = tests.filter((t) => t.status === "skip").length;
  const inconclusive = tests.filter((t) => t.status === "inconclusive").length;
  const parts = [count(tests.length, "test")];
  if (failed) parts.push(`${failed} failed`);
  if (skipped) parts.push(`${skipped} skipped`);
  if (inconclusive) parts.push(`${inconclusive} inconclusive`);
  return parts.join(", ");
}

/**
 * The reason in one line. A longer reason is a test's message, shown in full (line breaks
 * kept) with that test below: a paragraph would repeat it with its lines run together.
 */
function renderReason(status: RequirementStatus, reason: string): SafeHtml {
  const first = headline(reason);
  const more = first.length < reason.trimEnd().length ? " (in full below)" : "";
  return html`<p class="reason">${REASON_LABEL[status]}${first}${more}</p>`;
}

function renderRequirement(req: RequirementReport): SafeHtml {
  const open = needsAttention(req.status) ? html` open` : null;
  return html`<article class="req ${req.status}" id="req-${req.id}" data-status="${req.status}">
<div class="req-head"><span class="id">${req.id}</span><span class="level">${req.level}</span>${badge(req.status)}<span class="summary">${withInlineCode(req.summary)}</span></div>
<blockquote class="spec">${withInlineCode(req.spec)}</blockquote>
${req.baselined ? html`<p class="reason baselined">Known failure, accepted by the baseline${req.baselineExpires === undefined ? "" : ` until ${req.baselineExpires}`}: ${req.baselineReason ?? "no reason given"}</p>` : null}
${req.reason === undefined ? null : renderReason(req.status, req.reason)}
${req.tests.length ? html`<details class="tests"${open}><summary>${testsSummary(req.tests)}</summary><ol>${req.tests.map(renderTest)}</ol></details>` : html`<p class="reason">No test ran for this requirement.</p>`}
</article>`;
}

/** Requirements grouped by family, families in the order they first appear in the report. */
export function groupByFamily(requirements: readonly RequirementReport[]): Map<string, RequirementReport[]> {
  const groups = new Map<string, RequirementReport[]>();
  for (const req of requirements) {
    const group = groups.get(req.family);
    if (group) group.push(req);
    else groups.set(req.family, [req]);
  }
  return groups;
}

export function renderFamilies(requirements: readonly RequirementReport[]): SafeHtml {
  const sections = [...groupByFamily(requirements)].map(([family, reqs]) => {
    const problems = reqs.filter((r) => needsAttention(r.status)).length;
    return html`<section class="family" id="family-${family}">
<h2>${familyTitle(family)} <small>(${count(reqs.length, "requirement")}${problems ? `, ${problems} failed or warned` : ""})</small></h2>
${reqs.map(renderRequirement)}
</section>`;
  });
  return html`${sections}`;
}
