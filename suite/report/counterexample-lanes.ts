/**
 * An interaction counterexample in the HTML report: one lane per connection, each operation a
 * bar from when it was sent to when its answer ended, so an overlap shows at a glance; below,
 * the numbered transcript with the model's expectation and the command that replays it.
 */
import type { Counterexample } from "./report-types.ts";
import { html, type SafeHtml } from "./safe-html.ts";

/** Bars narrower than this (per cent of the width) are widened to stay visible. */
const MIN_BAR_PERCENT = 1.5;

export function renderCounterexample(c: Counterexample): SafeHtml {
  const span = Math.max(1, ...c.operations.map((o) => o.endMs));
  const lanes = [...new Set(c.operations.map((o) => o.lane))].sort((a, b) => a - b);
  const bar = (o: Counterexample["operations"][number]) => {
    const left = (100 * o.startMs) / span;
    const width = Math.max(MIN_BAR_PERCENT, (100 * (o.endMs - o.startMs)) / span);
    const style = `left:${left.toFixed(2)}%;width:${Math.min(width, 100 - left).toFixed(2)}%`;
    return html`<span class="op" style="${style}" title="#${o.n} ${o.request} → ${o.answer}">#${o.n}</span>`;
  };
  return html`<div class="counterexample">
<h4>Counterexample: ${c.requirement} (${c.operations.length} of ${c.historyLength} operations, ${c.confirmation})</h4>
<div class="lanes">${lanes.map((lane) => html`<div class="lane"><span class="lane-name">lane ${lane}</span><div class="track">${c.operations.filter((o) => o.lane === lane).map(bar)}</div></div>`)}</div>
<ol class="operations">${c.operations.map((o) => html`<li value="${o.n}"><code>${o.request}</code>${o.overlaps.length > 0 ? ` (overlaps #${o.overlaps.join(", #")})` : ""} → <code>${o.answer}</code></li>`)}</ol>
<p><strong>Found:</strong> ${c.message}</p>
${c.expected === undefined ? null : html`<p><strong>Expected:</strong> ${c.expected}</p>`}
<p><strong>Replay:</strong> <code>${c.replay}</code></p>
</div>`;
}
