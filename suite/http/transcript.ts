/**
 * Transcripts: redacted, size-capped records of one exchange, for failure messages and reports.
 */

import type { Redactor } from "./redact.ts";
import type { Transcript } from "./types.ts";

/** Bodies in transcripts are for humans: a few KiB is enough to see what happened. */
export const TRANSCRIPT_BODY_CHARS = 4096;

export function capText(text: string, max = TRANSCRIPT_BODY_CHARS): string {
  return text.length <= max ? text : `${text.slice(0, max)}…(${text.length - max} more characters)`;
}

export interface ExchangeRecord {
  method: string;
  url: string;
  requestHeaders: Record<string, string>;
  requestBody?: string | undefined;
  status?: number | undefined;
  responseHeaders?: Record<string, string> | undefined;
  responseBody?: string | undefined;
  failure?: string | undefined;
  durationMs: number;
}

export function buildTranscript(record: ExchangeRecord, redactor: Redactor): Transcript {
  const transcript: Transcript = {
    request: {
      method: record.method,
      url: redactor.scrub(record.url),
      headers: redactor.headers(record.requestHeaders),
    },
    durationMs: Math.round(record.durationMs),
  };
  if (record.requestBody !== undefined) transcript.request.body = redactor.scrub(capText(record.requestBody));
  if (record.status !== undefined) {
    transcript.response = { status: record.status, headers: redactor.headers(record.responseHeaders ?? {}) };
    if (record.responseBody !== undefined && record.responseBody !== "") {
      transcript.response.body = redactor.scrub(capText(record.responseBody));
    }
  }
  if (record.failure !== undefined) transcript.failure = redactor.scrub(record.failure);
  return transcript;
}

/** A transcript as a few readable lines (for error messages and the console summary). */
export function formatTranscript(t: Transcript): string {
  // Every line of a body keeps its direction mark, so a stream body stays readable.
  const body = (mark: string, text: string) =>
    text
      .replace(/\r\n|\r|\n/g, "\n")
      .replace(/\n+$/, "")
      .split("\n")
      .map((l) => `${mark} ${l}`);
  const lines = [`> ${t.request.method} ${t.request.url}`];
  for (const [name, value] of Object.entries(t.request.headers)) lines.push(`> ${name}: ${value}`);
  if (t.request.body !== undefined) lines.push(">", ...body(">", t.request.body));
  if (t.response !== undefined) {
    lines.push(`< ${t.response.status}`);
    for (const [name, value] of Object.entries(t.response.headers)) lines.push(`< ${name}: ${value}`);
    if (t.response.body !== undefined) lines.push("<", ...body("<", t.response.body));
  }
  if (t.failure !== undefined) lines.push(`! ${t.failure}`);
  lines.push(`(${t.durationMs} ms)`);
  return lines.join("\n");
}
