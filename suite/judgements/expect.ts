/**
 * Named expectations for the checks (in the style of distribution-spec's `apiExpectStatus`):
 * each one throws a failure that says what was expected, what came, and shows the redacted
 * exchange that showed it. Checks use these for anything the target sent; vitest's `expect`
 * only for simple comparisons of values the check computed itself.
 */
import { z } from "zod";
import { errorCode } from "../../schemas/index.ts";
import { InconclusiveError } from "../http/errors.ts";
import type { HttpResult, StreamProblem, StreamProblemKind, StreamResult, Transcript } from "../http/types.ts";

/** Anything that carries the transcript of the exchange it came from. */
export type Evidence = HttpResult | StreamResult;

const BODY_PREVIEW_CHARS = 2_000;

/**
 * A failed expectation about the target (not a failure of the harness). `what` and
 * `transcripts` are the data; `message` joins them for display only, and nothing reads it back.
 */
export class ExpectationError extends Error {
  override name = "ExpectationError";
  /** What was wrong, whole (a shape's explanation included). */
  readonly what: string;
  readonly transcripts: readonly Transcript[];

  constructor(what: string, evidence: readonly Evidence[] = []) {
    const transcripts = evidence.map((e) => e.transcript);
    super([what, ...transcripts.map(formatTranscript)].join("\n\n"));
    this.what = what;
    this.transcripts = transcripts;
  }
}

/** Throws an ExpectationError carrying the exchanges as evidence. */
export function fail(message: string, ...evidence: Evidence[]): never {
  throw new ExpectationError(message, evidence);
}

/** Throws unless `condition` holds; `message` says what should have been true. */
export function expectThat(condition: boolean, message: string, ...evidence: Evidence[]): asserts condition {
  if (!condition) fail(message, ...evidence);
}

/** Two values the target produced must be equal (deep, key order ignored). */
export function expectSame(actual: unknown, expected: unknown, what: string, ...evidence: Evidence[]): void {
  if (!isSame(actual, expected)) {
    fail(`${what}: expected ${preview(expected)}, got ${preview(actual)}`, ...evidence);
  }
}

const prefix = (context: string | undefined) => (context ? `${context}: ` : "");

export const is2xx = (status: number) => status >= 200 && status < 300;
export const is4xx = (status: number) => status >= 400 && status < 500;

export function expect2xx(res: Evidence, context?: string): void {
  if (!is2xx(res.status)) fail(`${prefix(context)}expected a 2xx status, got ${res.status}`, res);
}

export function expectNon2xx(res: Evidence, context?: string): void {
  if (is2xx(res.status)) fail(`${prefix(context)}expected a non-2xx status, got ${res.status}`, res);
}

export function expect4xx(res: Evidence, context?: string): void {
  if (!is4xx(res.status)) fail(`${prefix(context)}expected a 4xx status, got ${res.status}`, res);
}

/** Exactly this status, or one of these statuses. */
export function expectStatus(res: Evidence, expected: number | readonly number[], context?: string): void {
  const allowed = typeof expected === "number" ? [expected] : expected;
  if (!allowed.includes(res.status)) {
    fail(`${prefix(context)}expected status ${allowed.join(" or ")}, got ${res.status}`, res);
  }
}

/** The statuses that refuse an invalid request: 400, or 422 as many frameworks answer (FastAPI, Rails). */
const VALIDATION_REFUSAL = [400, 422] as const;

/** A request the target must find invalid was refused as such (400 or 422). */
export function expectValidationRefusal(res: Evidence, context?: string): void {
  expectStatus(res, VALIDATION_REFUSAL, context);
}

/** The JSON body, validated by a (spec-strength) schema; the failure shows z.prettifyError. */
export function expectJson<S extends z.ZodType>(schema: S, res: HttpResult, context?: string): z.output<S> {
  if (res.json === undefined) {
    fail(`${prefix(context)}expected a JSON body, got ${preview(res.text)}`, res);
  }
  const parsed = schema.safeParse(res.json);
  if (!parsed.success) {
    fail(`${prefix(context)}the JSON body does not have the expected shape:\n${z.prettifyError(parsed.error)}`, res);
  }
  return parsed.data;
}

/** A value the target sent (an event payload, a list item) must match a schema. */
export function expectShape<S extends z.ZodType>(
  schema: S,
  value: unknown,
  what: string,
  ...evidence: Evidence[]
): z.output<S> {
  const parsed = schema.safeParse(value);
  if (!parsed.success) {
    fail(
      `${what} does not have the expected shape:\n${z.prettifyError(parsed.error)}\nvalue: ${preview(value)}`,
      ...evidence,
    );
  }
  return parsed.data;
}

/** The error body carries a machine-readable code in one of the accepted shapes; returns it. */
export function expectSomeErrorCode(res: HttpResult, context?: string): string {
  const code = errorCode(res.json);
  if (code === undefined) {
    fail(
      `${prefix(context)}expected an error body with a machine-readable code (in error.code, code, detail.code, errors[0].code, or an RFC 9457 type ending in the code), got ${preview(res.text)}`,
      res,
    );
  }
  return code;
}

/** The error body carries exactly this code (only where the spec names one). */
export function expectErrorCode(res: HttpResult, code: string, context?: string): void {
  const actual = errorCode(res.json);
  if (actual !== code) {
    fail(
      `${prefix(context)}expected error code "${code}", got ${actual === undefined ? `no code in ${preview(res.text)}` : `"${actual}"`}`,
      res,
    );
  }
}

const EVENT_STREAM = /^\s*text\/event-stream\s*(;|$)/i;

/** The response is declared as an event stream (case and parameters ignored). */
export function isEventStream(headers: Record<string, string>): boolean {
  return EVENT_STREAM.test(headers["content-type"] ?? "");
}

export function expectEventStream(res: StreamResult, context?: string): void {
  expect2xx(res, context);
  if (!isEventStream(res.headers)) {
    fail(
      `${prefix(context)}expected Content-Type text/event-stream, got ${preview(res.headers["content-type"] ?? "(none)")}`,
      res,
    );
  }
}

/** The reader's timeouts, and the flag that gives the target more room for each. */
const TIMEOUT_FLAGS: Partial<Record<StreamProblemKind, string>> = {
  "first-event-timeout": "--first-event-timeout",
  "idle-timeout": "--idle-timeout",
  "total-timeout": "--stream-timeout",
};

/** The timeout that stopped the stream before its terminal event, if one did. */
export function cutShort(result: StreamResult): StreamProblem | undefined {
  if (result.terminal !== undefined) return undefined;
  return result.problems.find((p) => TIMEOUT_FLAGS[p.kind] !== undefined);
}

/**
 * Throws InconclusiveError when the stream timed out before its terminal event: a slow target
 * is not a broken one, and what never arrived cannot be judged.
 */
export function inconclusiveIfCutShort(result: StreamResult, context: string): void {
  const problem = cutShort(result);
  if (problem === undefined) return;
  throw new InconclusiveError(
    "timeout",
    `${context}: ${problem.kind}: ${problem.detail}`,
    TIMEOUT_FLAGS[problem.kind] ?? "--stream-timeout",
    result.transcript,
  );
}

/**
 * A stream that answered 2xx as an event stream, reached a terminal event and had no problems;
 * one that timed out before its terminal event is inconclusive, not a failure.
 */
export function expectStreamOk(res: StreamResult, context?: string): void {
  inconclusiveIfCutShort(res, context ?? "the stream");
  expectEventStream(res, context);
  if (res.problems.length > 0) {
    const problems = res.problems.map((p) => `${p.kind}: ${p.detail}`).join("; ");
    fail(`${prefix(context)}the stream had problems: ${problems}`, res);
  }
  if (res.terminal === undefined) fail(`${prefix(context)}the stream ended without a terminal event`, res);
}

/** The HTTP body of a non-stream answer to a stream request (a pre-stream failure). */
export function expectPlainHttpAnswer(res: StreamResult, context?: string): HttpResult {
  if (res.http === undefined || isEventStream(res.headers)) {
    fail(`${prefix(context)}expected a plain HTTP answer, got an event stream (status ${res.status})`, res);
  }
  return res.http;
}

function isSame(a: unknown, b: unknown): boolean {
  if (Object.is(a, b)) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a) && Array.isArray(b)) {
    return a.length === b.length && a.every((item, i) => isSame(item, b[i]));
  }
  const aKeys = Object.keys(a);
  const bKeys = Object.keys(b);
  if (aKeys.length !== bKeys.length) return false;
  const bRecord = b as Record<string, unknown>;
  const aRecord = a as Record<string, unknown>;
  return aKeys.every((key) => Object.hasOwn(bRecord, key) && isSame(aRecord[key], bRecord[key]));
}

/** Deep equality of JSON values, key order ignored (exported for relative comparisons). */
export const sameJson = isSame;

function preview(value: unknown): string {
  const text = typeof value === "string" ? JSON.stringify(value) : safeStringify(value);
  return text.length > 300 ? `${text.slice(0, 300)}…` : text;
}

function safeStringify(value: unknown): string {
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}

/** A readable, already-redacted request/response pair. */
export function formatTranscript(t: Transcript): string {
  const lines = [`> ${t.request.method} ${t.request.url}`];
  for (const [name, value] of Object.entries(t.request.headers)) lines.push(`> ${name}: ${value}`);
  if (t.request.body !== undefined) lines.push(`> ${cap(t.request.body)}`);
  if (t.response) {
    lines.push(`< ${t.response.status}`);
    for (const [name, value] of Object.entries(t.response.headers)) lines.push(`< ${name}: ${value}`);
    if (t.response.body !== undefined) lines.push(`< ${cap(t.response.body)}`);
  }
  if (t.failure !== undefined) lines.push(`! ${t.failure}`);
  lines.push(`(${Math.round(t.durationMs)} ms)`);
  return lines.join("\n");
}

const cap = (text: string) => (text.length > BODY_PREVIEW_CHARS ? `${text.slice(0, BODY_PREVIEW_CHARS)}…` : text);
