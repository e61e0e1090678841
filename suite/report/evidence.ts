import type { TimelineEvent } from "./report-types.ts";
import type { Transcript } from "../http/types.ts";
import { count } from "./format.ts";
import { html, type SafeHtml } from "./safe-html.ts";

/** Header lines as they travel on the wire, in the order the harness recorded them. */
const headerLines = (headers: Record<string, string>) =>
  Object.entries(headers).map(([name, value]) => `${name}: ${value}`);

/** An HTTP message as text: start line, header lines, a blank line, then the body if any. */
const message = (startLine: string, headers: Record<string, string>, body: string | undefined) =>
  [startLine, ...headerLines(headers), ...(body === undefined ? [] : ["", body])].join("\n");

/** One redacted exchange: the request beside the response (or the harness failure that replaced it). */
export function renderTranscript(transcript: Transcript): SafeHtml {
  const { request, response, failure } = transcript;
  return html`<div class="exchange">
<div class="request"><h4>Request</h4><pre>${message(`${request.method} ${request.url}`, request.headers, request.body)}</pre></div>
<div class="response"><h4>Response · ${Math.round(transcript.durationMs)} ms</h4>${
    response
      ? html`<pre>${message(`HTTP ${response.status}`, response.headers, response.body)}</pre>`
      : html`<pre>(no response)</pre>`
  }${failure ? html`<p class="failure">Harness: ${failure}</p>` : null}</div>
</div>`;
}

/** One stream as the reader saw it: when each event arrived, its name, and its data. */
export function renderTimeline(events: readonly TimelineEvent[], index: number): SafeHtml {
  const rows = events.map(
    (e) =>
      html`<tr><td class="at">${Math.round(e.at)}</td><td>${e.event ?? html`<em>(no event line)</em>`}</td><td class="data">${e.data}</td></tr>`,
  );
  return html`<table class="timeline">
<caption>Stream ${index + 1}: ${count(events.length, "event")}</caption>
<thead><tr><th>at (ms)</th><th>event</th><th>data</th></tr></thead>
<tbody>${rows.length ? rows : html`<tr><td colspan="3">No events arrived.</td></tr>`}</tbody>
</table>`;
}
