/**
 * What the interaction property explored (conformance.json's `interactions`), as the HTML
 * report shows it: one table per dimension, the missing cells first, since they are what a
 * green run did not try, then a note of what was covered. The report carries the missing
 * cells' names only, so the covered ones are counted, not listed.
 */
import {
  COVERAGE_DIMENSIONS,
  type CoverageDimension,
  type DimensionCoverage,
  type InteractionsSummary,
} from "../interactions/coverage.ts";
import { count } from "./format.ts";
import { html, type SafeHtml } from "./safe-html.ts";

const DIMENSION_TITLES: Record<CoverageDimension, string> = {
  transitions: "Transitions (state of the conversation and the key × operation × endpoint × identity)",
  orderings: "Orderings (each overlap class in both orders)",
  inputs: "Inputs (shape classes of each field, header and parameter)",
  client: "Client behaviours (dropped streams, retries, cancellations)",
};

/** "covered/total" of each dimension, as the console's coverage line prints them. */
export function coverageFigures(summary: InteractionsSummary): string {
  return COVERAGE_DIMENSIONS.map((d) => `${d} ${summary.coverage[d].covered}/${summary.coverage[d].total}`).join(", ");
}

function coveredNote(c: DimensionCoverage): string {
  if (c.total === 0) return "The model can reach no cell of this dimension.";
  if (c.missing.length === 0) return `Every one of the ${count(c.total, "reachable cell")} was covered.`;
  if (c.covered === 0) return "No cell was covered.";
  return `The other ${count(c.covered, "reachable cell")} ${c.covered === 1 ? "was" : "were"} covered.`;
}

function dimensionTable(dimension: CoverageDimension, c: DimensionCoverage): SafeHtml {
  const state = c.missing.length === 0 ? "complete" : "partial";
  return html`<table class="coverage ${state}" id="coverage-${dimension}">
<caption>${DIMENSION_TITLES[dimension]}: <strong>${c.covered}/${c.total}</strong> covered</caption>
<tbody>${c.missing.map((cell) => html`<tr class="missing"><td><code>${cell}</code></td><td>not covered</td></tr>`)}<tr class="covered"><td colspan="2">${coveredNote(c)}</td></tr></tbody>
</table>`;
}

/** The section, or nothing when the property did not run. */
export function renderCoverage(summary: InteractionsSummary | undefined): SafeHtml | null {
  if (summary === undefined) return null;
  const seeds = summary.seeds.length
    ? `; ${summary.seeds.length === 1 ? "seed" : "seeds"} ${summary.seeds.join(", ")}`
    : "";
  return html`<section class="interactions" id="interactions">
<h2>Interaction coverage</h2>
<p>The interaction property ran ${count(summary.sequences, "sequence")}, ${count(summary.operations, "operation")} and ${count(summary.creates, "create")}${seeds}. Cells it did not reach are listed first.</p>
${COVERAGE_DIMENSIONS.map((d) => dimensionTable(d, summary.coverage[d]))}
</section>`;
}
