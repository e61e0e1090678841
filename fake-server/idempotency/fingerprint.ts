/**
 * What an idempotency record keeps of a payload: its canonical JSON (schemas/canonical-json.ts)
 * when short, its SHA-256 when long, so a record stays small for the day it lives and comparing
 * two payloads stays exact.
 */
import { hash } from "node:crypto";
import { canonicalJson } from "../../schemas/canonical-json.ts";

/** Canonical texts up to this length are their own fingerprint. */
export const SHORT_PAYLOAD_CHARS = 128;

/**
 * The fingerprint of a canonical JSON text (see `payloadFingerprint`), for a caller that
 * needs the text too. A short text is its own fingerprint: comparing it is exact, it is about
 * as long as a digest, and the usual body (a question, perhaps a conversation id) skips the
 * hash. A longer one gives its SHA-256 in base64: 44 characters ending in "=", which no JSON
 * text ends with, so the two kinds never collide.
 */
export function fingerprintOfCanonical(canonical: string): string {
  if (canonical.length <= SHORT_PAYLOAD_CHARS) return flattened(canonical);
  // One call, no Hash object: the streaming API costs more than the digest.
  return hash("sha256", canonical, "base64");
}

/**
 * The same text as one flat string. canonicalJson builds its text piece by piece, and
 * V8 keeps such a string as a tree of its pieces, several times its length; a record keeps
 * its fingerprint for a day. Converting a string to a number flattens it in place (V8's
 * ToNumber reads flat strings only), and the collector then keeps just the flat copy.
 */
function flattened(text: string): string {
  void Number(text);
  return text;
}

/** What a record keeps of a payload: a bounded fingerprint of its canonical JSON, never a long body. */
export function payloadFingerprint(value: unknown): string {
  return fingerprintOfCanonical(canonicalJson(value));
}
