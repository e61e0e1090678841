import { hash } from "node:crypto";

/** Text written as is, as opposed to a value still to be written. */
class Token {
  constructor(readonly text: string) {}
}
const COMMA = new Token(",");
const CLOSE_ARRAY = new Token("]");
const CLOSE_OBJECT = new Token("}");

/**
 * Canonical JSON of a parsed JSON value: object keys sorted, no whitespace. Two bodies
 * that are equal as JSON (whatever their key order or spacing) get the same text.
 * Keys are read with Object.entries, so "__proto__" is an ordinary key here.
 * It walks an explicit stack rather than recursing: a body may nest arrays thousands deep
 * inside a field the schema ignores, and that must not overflow the call stack (a 500).
 */
export function canonicalJson(value: unknown): string {
  return flatObjectJson(value) ?? nestedJson(value);
}

const byCodeUnits = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/**
 * The usual body, an object of strings, numbers, booleans and nulls, written directly;
 * undefined for anything else. The text is the same `nestedJson` writes.
 */
function flatObjectJson(value: unknown): string | undefined {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return undefined;
  const keys = Object.keys(value).sort(byCodeUnits);
  let out = "{";
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i] ?? "";
    const item: unknown = (value as Record<string, unknown>)[key];
    if (typeof item === "object" && item !== null) return undefined;
    out += `${i > 0 ? "," : ""}${JSON.stringify(key)}:${JSON.stringify(item) ?? "null"}`;
  }
  return `${out}}`;
}

function nestedJson(value: unknown): string {
  const out: string[] = [];
  const pending: unknown[] = [value];
  while (pending.length > 0) {
    const item = pending.pop();
    if (item instanceof Token) {
      out.push(item.text);
    } else if (Array.isArray(item)) {
      out.push("[");
      pending.push(CLOSE_ARRAY);
      for (let i = item.length - 1; i >= 0; i--) {
        pending.push(item[i]);
        if (i > 0) pending.push(COMMA);
      }
    } else if (typeof item === "object" && item !== null) {
      const entries = Object.entries(item).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
      out.push("{");
      pending.push(CLOSE_OBJECT);
      for (let i = entries.length - 1; i >= 0; i--) {
        const [key, child] = entries[i] ?? ["", null];
        pending.push(child, new Token(`${JSON.stringify(key)}:`));
        if (i > 0) pending.push(COMMA);
      }
    } else {
      out.push(JSON.stringify(item) ?? "null");
    }
  }
  return out.join("");
}

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
 * The same text as one flat string. The writers above build their text piece by piece, and
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
