/**
 * Reading a response body with a byte cap: stop and destroy the stream past the cap,
 * so a target that sends 50 MB costs the harness at most the cap.
 */

import type { Dispatcher } from "undici";
import { TargetError } from "./errors.ts";

type HeaderValue = string | string[] | undefined;

/** Lower-case names; repeated headers joined with ", ". */
export function flattenHeaders(headers: Record<string, HeaderValue>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined) continue;
    out[name.toLowerCase()] = Array.isArray(value) ? value.join(", ") : value;
  }
  return out;
}

/** Media type without parameters, lower-cased: "Text/Event-Stream; charset=utf-8" → "text/event-stream". */
export function mediaType(contentType: string | undefined): string {
  return (contentType ?? "").split(";")[0]?.trim().toLowerCase() ?? "";
}

export function tryParseJson(text: string): unknown {
  if (text.trim() === "") return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/**
 * Reads the whole body as UTF-8 text, or throws TargetError("size-cap") as soon as it
 * passes `cap` bytes (after destroying the stream). Other read errors propagate unchanged.
 */
export async function readCappedText(
  body: Dispatcher.ResponseData["body"],
  cap: number,
  declaredLength?: string,
): Promise<string> {
  const declared = declaredLength === undefined ? NaN : Number(declaredLength);
  if (Number.isFinite(declared) && declared > cap) {
    body.destroy();
    throw new TargetError("size-cap", `response declares Content-Length ${declared}, above the cap of ${cap} bytes`);
  }
  const decoder = new TextDecoder("utf-8");
  let text = "";
  let bytes = 0;
  for await (const chunk of body as AsyncIterable<Buffer>) {
    bytes += chunk.length;
    if (bytes > cap) {
      body.destroy();
      throw new TargetError("size-cap", `response body passed the cap of ${cap} bytes`);
    }
    text += decoder.decode(chunk, { stream: true });
  }
  return text + decoder.decode();
}
