/**
 * HAR 1.2 (http://www.softwareishard.com/blog/har-12-spec/) in and out: browser devtools,
 * Playwright's recordHar and mitmproxy's export write it; the proxy's --har writes it too.
 * Read leniently (extra fields, `_`-prefixed extensions, base64 bodies, missing optional
 * parts), checked strictly where the judge needs a value.
 */
import { createHash } from "node:crypto";
import { z } from "zod";
import type { ObservedExchange } from "./exchange.ts";

const Header = z.looseObject({ name: z.string(), value: z.string() });
const Content = z.looseObject({
  size: z.number().optional(),
  text: z.string().optional(),
  encoding: z.string().optional(),
  mimeType: z.string().optional(),
});
const Entry = z.looseObject({
  startedDateTime: z.string(),
  time: z.number().optional(),
  timings: z.looseObject({ wait: z.number().optional() }).optional(),
  /** The proxy's mark of an exchange cut before it ended (HAR allows `_`-prefixed fields). */
  _incomplete: z.boolean().optional(),
  request: z.looseObject({
    method: z.string(),
    url: z.string(),
    headers: z.array(Header).default([]),
    bodySize: z.number().optional(),
    postData: z.looseObject({ text: z.string().optional(), encoding: z.string().optional() }).optional(),
  }),
  response: z.looseObject({
    status: z.number(),
    headers: z.array(Header).default([]),
    content: Content.default({}),
    _error: z.string().nullable().optional(),
  }),
});
export const Har = z.looseObject({ log: z.looseObject({ version: z.string().optional(), entries: z.array(Entry) }) });

export class HarError extends Error {
  override name = "HarError";
}

function headerRecord(headers: readonly { name: string; value: string }[]): Record<string, string> {
  const record: Record<string, string> = {};
  for (const { name, value } of headers) {
    // HTTP/2 pseudo-headers (":authority") are not headers of the message.
    if (name.startsWith(":")) continue;
    const lower = name.toLowerCase();
    record[lower] = record[lower] === undefined ? value : `${record[lower]}, ${value}`;
  }
  return record;
}

/**
 * A recorded body's text. HAR leaves `text` out when the body was not recorded (a browser that
 * dropped it, Playwright's content "omit"): only a size of 0 says there was none, and a body
 * nobody recorded stays undefined rather than passing for an empty one.
 */
function text(value: string | undefined, encoding: string | undefined, size: number | undefined): string | undefined {
  if (value === undefined) return size === 0 ? "" : undefined;
  return encoding === "base64" ? Buffer.from(value, "base64").toString("utf8") : value;
}

const withoutBody = (method: string) => /^(GET|HEAD)$/i.test(method);

/** The exchanges of a HAR document, in the order they started; a HarError naming what is wrong otherwise. */
export function readHar(source: string, name: string, firstSequence = 0): ObservedExchange[] {
  let json: unknown;
  try {
    json = JSON.parse(source);
  } catch (error) {
    throw new HarError(`${name} is not JSON: ${error instanceof Error ? error.message : String(error)}`);
  }
  const parsed = Har.safeParse(json);
  if (!parsed.success)
    throw new HarError(
      `${name} is not a HAR file: ${z.prettifyError(parsed.error).split("\n").slice(0, 4).join("; ")}`,
    );
  const entries = [...parsed.data.log.entries].sort(
    (a, b) => Date.parse(a.startedDateTime) - Date.parse(b.startedDateTime),
  );
  return entries.map((entry, index) => {
    const { request, response } = entry;
    // Status 0 is how browsers record a request that got no answer (blocked, failed, aborted).
    const answered = response.status > 0;
    const error = response._error ?? undefined;
    // -1 is HAR's "not known".
    const wait = entry.timings?.wait;
    return {
      sequence: firstSequence + index,
      startedAt: Date.parse(entry.startedDateTime) || 0,
      request: {
        method: request.method,
        url: request.url,
        headers: headerRecord(request.headers),
        body: withoutBody(request.method)
          ? undefined
          : text(
              request.postData?.text,
              request.postData?.encoding,
              request.postData === undefined ? request.bodySize : undefined,
            ),
      },
      response: answered
        ? {
            status: response.status,
            headers: headerRecord(response.headers),
            // 204 and 304 have no body by definition, whatever the recorder wrote.
            body:
              response.status === 204 || response.status === 304
                ? ""
                : text(response.content.text, response.content.encoding, response.content.size),
            complete: error === undefined,
            chunks: undefined,
          }
        : undefined,
      failure: error,
      ...(entry._incomplete === true ? { incomplete: true as const } : {}),
      durationMs: Math.max(0, entry.time ?? 0),
      ...(wait === undefined || wait < 0 ? {} : { waitMs: wait }),
    };
  });
}

/**
 * An Authorization value with its key replaced by a stable pseudonym: distinct keys stay
 * distinct (scope and idempotency are judged per key) and a Bearer header keeps its form
 * (CLIENT-1), but the key itself never reaches the file.
 */
export function pseudonymousAuthorization(value: string): string {
  const match = /^(Bearer +)(\S+)(\s*)$/i.exec(value);
  const digest = (text: string) => createHash("sha256").update(text).digest("hex").slice(0, 12);
  return match === null ? `(redacted ${digest(value)})` : `${match[1]}key-${digest(match[2] ?? "")}${match[3]}`;
}

/** A response body as HAR content: left without `text` (size -1) when it is not known. */
function contentOf({ response }: ObservedExchange): { size: number; mimeType: string; text?: string } {
  const mimeType = response?.headers["content-type"] ?? "";
  if (response === undefined) return { size: 0, mimeType, text: "" };
  return response.body === undefined
    ? { size: -1, mimeType }
    : { size: Buffer.byteLength(response.body), mimeType, text: response.body };
}

const pseudonymousHeaders = (record: Readonly<Record<string, string>>) =>
  Object.entries(record).map(([name, value]) => ({
    name,
    value: name === "authorization" ? pseudonymousAuthorization(value) : value,
  }));

/** Who wrote a HAR file the proxy made. */
export const HAR_CREATOR = { name: "agent-conformance proxy", version: "1" };

/**
 * HAR timings: `wait` until the response head (the first byte), `receive` the body after it; a
 * stream's events are received, not waited for. Without a head, the whole time was waiting.
 */
function timingsOf({ durationMs, waitMs }: ObservedExchange): { send: number; wait: number; receive: number } {
  const wait = Math.min(durationMs, waitMs ?? durationMs);
  return { send: 0, wait, receive: durationMs - wait };
}

/** One exchange as a HAR 1.2 entry, its Authorization value pseudonymised; `_incomplete` when it was cut before it ended. */
export function harEntry(exchange: ObservedExchange): unknown {
  return {
    startedDateTime: new Date(exchange.startedAt).toISOString(),
    time: exchange.durationMs,
    request: {
      method: exchange.request.method,
      url: exchange.request.url,
      httpVersion: "HTTP/1.1",
      headers: pseudonymousHeaders(exchange.request.headers),
      queryString: [...new URL(exchange.request.url).searchParams].map(([name, value]) => ({ name, value })),
      cookies: [],
      headersSize: -1,
      bodySize:
        exchange.request.body === undefined
          ? withoutBody(exchange.request.method)
            ? 0
            : -1
          : Buffer.byteLength(exchange.request.body),
      ...(exchange.request.body === undefined
        ? {}
        : { postData: { mimeType: exchange.request.headers["content-type"] ?? "", text: exchange.request.body } }),
    },
    response: {
      status: exchange.response?.status ?? 0,
      statusText: "",
      httpVersion: "HTTP/1.1",
      headers: pseudonymousHeaders(exchange.response?.headers ?? {}),
      cookies: [],
      content: contentOf(exchange),
      redirectURL: "",
      headersSize: -1,
      bodySize: -1,
      ...(exchange.failure === undefined && exchange.response?.complete !== false
        ? {}
        : { _error: exchange.failure ?? "the body ended early" }),
    },
    cache: {},
    timings: timingsOf(exchange),
    ...(exchange.incomplete === true ? { _incomplete: true } : {}),
  };
}

/** Exchanges as a HAR 1.2 document, every Authorization value pseudonymised. */
export function writeHar(exchanges: readonly ObservedExchange[]): unknown {
  return { log: { version: "1.2", creator: HAR_CREATOR, entries: exchanges.map(harEntry) } };
}
