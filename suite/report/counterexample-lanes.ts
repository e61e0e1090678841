/**
 * An interaction counterexample in the HTML report: one lane per connection, each operation a
 * bar from when it was sent to when its answer ended, so an overlap shows at a glance; below,
 * the numbered transcript (once, as preformatted lines), the model's expectation and the
 * command that replays it.
 *
 * The bars are SVG rectangles placed by their x and width attributes. The page's policy allows
 * only its own hashed stylesheet, so an inline `style="left:…"` is refused and every bar would
 * sit at the left edge; geometry as attributes is data, not style, and the stylesheet stays one
 * constant that never takes report data.
 */
import type { Counterexample, CounterexampleOperation } from "./report-types.ts";
import { html, type SafeHtml } from "./safe-html.ts";

/** Bars narrower than this (per cent of the width) are widened to stay visible. */
const MIN_BAR_PERCENT = 1.5;

/** Where a bar starts and how wide it is, in per cent of the track, kept inside the track. */
export function barGeometry(o: CounterexampleOperation, spanMs: number): { x: number; width: number } {
  const x = Math.min((100 * o.startMs) / spanMs, 100 - MIN_BAR_PERCENT);
  const width = Math.max(MIN_BAR_PERCENT, (100 * (o.endMs - o.startMs)) / spanMs);
  return { x: round(x), width: round(Math.min(width, 100 - x)) };
}

const round = (percent: number) => Math.round(percent * 100) / 100;

function bar(o: CounterexampleOperation, spanMs: number): SafeHtml {
  const { x, width } = barGeometry(o, spanMs);
  return html`<g class="op" data-n="${o.n}"><title>#${o.n} ${o.request} → ${o.answer}</title><rect x="${x}%" y="2" width="${width}%" height="18" rx="3"></rect><text x="${round(x + width / 2)}%" y="11" text-anchor="middle" dominant-baseline="central">#${o.n}</text></g>`;
}

/** One transcript line per operation, as the console prints it. */
export function transcriptLine(o: CounterexampleOperation): string {
  const overlap = o.overlaps.length === 0 ? "" : ` (overlaps #${o.overlaps.join(", #")})`;
  return `#${o.n} lane ${o.lane} ${o.request}${overlap} → ${o.answer}`;
}

export function renderCounterexample(c: Counterexample): SafeHtml {
  const span = Math.max(1, ...c.operations.map((o) => o.endMs));
  const lanes = [...new Set(c.operations.map((o) => o.lane))].sort((a, b) => a - b);
  const lane = (n: number) =>
    html`<div class="lane"><span class="lane-name">lane ${n}</span><svg class="track" role="img" aria-label="lane ${n}">${c.operations.filter((o) => o.lane === n).map((o) => bar(o, span))}</svg></div>`;
  return html`<div class="counterexample">
<h4>Counterexample: ${c.requirement} (${c.operations.length} of ${c.historyLength} operations, ${c.confirmation})</h4>
<div class="lanes">${lanes.map(lane)}</div>
<pre class="operations">${c.operations.map(transcriptLine).join("\n")}</pre>
${c.expected === undefined ? null : html`<p><strong>Expected:</strong> ${c.expected}</p>`}
<p><strong>Replay:</strong> <code>${c.replay}</code></p>
</div>`;
}
