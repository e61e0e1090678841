/**
 * The report's only stylesheet, inlined. System fonts only (no network). The filter is
 * pure CSS: the "failures only" radio hides passing and skipped rows (inconclusive ones stay), and whole families
 * left with nothing to show, so the page works with scripts disabled.
 */
export const REPORT_CSS = `
:root {
  --pass: #1a7f37; --pass-bg: #dafbe1;
  --fail: #cf222e; --fail-bg: #ffebe9;
  --warn: #9a6700; --warn-bg: #fff8c5;
  --skip: #57606a; --skip-bg: #eaeef2;
  --inconclusive: #8250df; --inconclusive-bg: #fbefff;
  --border: #d0d7de; --muted: #57606a; --code-bg: #f6f8fa;
}
* { box-sizing: border-box; }
body { margin: 0 auto; max-width: 72rem; padding: 1.5rem; color: #1f2328; background: #fff;
  font: 15px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif; }
h1 { font-size: 1.5rem; margin: 0 0 1rem; }
h2 { font-size: 1.2rem; margin: 2rem 0 .5rem; padding-bottom: .25rem; border-bottom: 1px solid var(--border); }
h3 { font-size: 1rem; margin: 1rem 0 .25rem; }
code, pre, .id { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, "Liberation Mono", monospace; font-size: 13px; }
pre { background: var(--code-bg); border: 1px solid var(--border); border-radius: 6px; padding: .5rem .75rem;
  margin: .25rem 0; overflow-x: auto; white-space: pre-wrap; overflow-wrap: anywhere; }
.banner { display: flex; align-items: baseline; gap: 1rem; padding: .75rem 1rem; border-radius: 8px; border: 2px solid; }
.banner strong { font-size: 1.6rem; letter-spacing: .05em; }
.banner.pass { color: var(--pass); background: var(--pass-bg); }
.banner.fail { color: var(--fail); background: var(--fail-bg); }
.banner.inconclusive { color: var(--inconclusive); background: var(--inconclusive-bg); }
.facts { display: grid; grid-template-columns: max-content 1fr; gap: .2rem 1rem; margin: 1rem 0; }
.facts dt { color: var(--muted); }
.facts dd { margin: 0; overflow-wrap: anywhere; }
.counts { display: flex; flex-wrap: wrap; gap: .5rem; padding: 0; list-style: none; }
.alert { border: 1px solid var(--warn); background: var(--warn-bg); border-radius: 6px; padding: .5rem 1rem; margin: 1rem 0; }
.alert.harness { border-color: var(--fail); background: var(--fail-bg); }
.badge { display: inline-block; min-width: 4.5rem; text-align: center; font-weight: 600; font-size: 12px;
  padding: .1rem .5rem; border-radius: 1rem; border: 1px solid; white-space: nowrap; }
.badge.pass { color: var(--pass); background: var(--pass-bg); }
.badge.fail { color: var(--fail); background: var(--fail-bg); }
.badge.warn { color: var(--warn); background: var(--warn-bg); }
.badge.skip, .badge.not_observed { color: var(--skip); background: var(--skip-bg); }
.badge.inconclusive { color: var(--inconclusive); background: var(--inconclusive-bg); }
.filter { border: 1px solid var(--border); border-radius: 6px; padding: .25rem 1rem; margin: 1.5rem 0 0; }
.filter label { margin-right: 1.5rem; cursor: pointer; }
.req { border: 1px solid var(--border); border-left: 6px solid var(--skip); border-radius: 6px; padding: .5rem .75rem; margin: .5rem 0; }
.req.pass { border-left-color: var(--pass); }
.req.fail { border-left-color: var(--fail); }
.req.warn { border-left-color: var(--warn); }
.req.inconclusive { border-left-color: var(--inconclusive); }
.req-head { display: flex; flex-wrap: wrap; align-items: baseline; gap: .25rem .75rem; }
.req-head .id { font-weight: 700; }
.req-head .level { color: var(--muted); font-size: 12px; font-weight: 600; }
.req-head .summary { flex: 1 1 20rem; }
.spec { margin: .25rem 0; padding-left: .75rem; border-left: 3px solid var(--border); color: var(--muted); }
.reason { margin: .25rem 0; font-style: italic; }
.tests > summary { cursor: pointer; color: var(--muted); }
.test { border-top: 1px dashed var(--border); padding: .4rem 0; }
.test-head { display: flex; flex-wrap: wrap; gap: .25rem .75rem; align-items: baseline; }
.test-head .file, .test-head .duration { color: var(--muted); font-size: 13px; }
.exchange { display: grid; grid-template-columns: 1fr 1fr; gap: .5rem; margin: .5rem 0; }
.exchange h4, .timeline caption { margin: 0; font-size: 13px; color: var(--muted); text-align: left; }
@media (max-width: 50rem) { .exchange { grid-template-columns: 1fr; } }
table.timeline { border-collapse: collapse; width: 100%; margin: .5rem 0; font-size: 13px; }
.timeline th, .timeline td { border: 1px solid var(--border); padding: .2rem .5rem; text-align: left; vertical-align: top; }
.timeline td.at { text-align: right; white-space: nowrap; }
.timeline td.data { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; overflow-wrap: anywhere; }
.counterexample .lanes { margin: .5rem 0; }
.counterexample .lane { display: flex; align-items: center; gap: .5rem; font-size: 12px; }
.counterexample .lane-name { flex: none; width: 4rem; color: var(--muted); }
.counterexample svg.track { display: block; flex: 1; min-width: 0; height: 22px; border-bottom: 1px dashed var(--border); overflow: visible; }
.counterexample .op rect { fill: #dbe7ff; stroke: #6b8fd6; stroke-width: 1; }
.counterexample .op text { fill: #1f2328; font-size: 11px; }
.interactions { margin-top: 2rem; }
table.coverage { border-collapse: collapse; width: 100%; margin: .75rem 0; font-size: 13px; }
.coverage caption { text-align: left; font-weight: 600; padding: .25rem 0; }
.coverage td { border: 1px solid var(--border); padding: .2rem .5rem; vertical-align: top; }
.coverage tr.missing td { background: var(--warn-bg); }
.coverage tr.missing td + td { color: var(--warn); white-space: nowrap; width: 1%; }
.coverage tr.covered td { color: var(--muted); }
.coverage.complete caption strong { color: var(--pass); }
.only-filtered { display: none; }
body:has(#show-failures:checked) .req.pass,
body:has(#show-failures:checked) .req.skip,
body:has(#show-failures:checked) .req.not_observed,
body:has(#show-failures:checked) .family:not(:has(.req.fail, .req.warn, .req.inconclusive)) { display: none; }
body:has(#show-failures:checked) .only-filtered { display: block; }
`;
