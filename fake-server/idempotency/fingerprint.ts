import { createHash } from "node:crypto";

/**
 * Canonical JSON of a parsed JSON value: object keys sorted, no whitespace. Two bodies
 * that are equal as JSON (whatever their key order or spacing) get the same text.
 * Keys are read with Object.entries, so "__proto__" is an ordinary key here.
 */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (typeof value === "object" && value !== null) {
    const entries = Object.entries(value).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([key, item]) => `${JSON.stringify(key)}:${canonicalJson(item)}`).join(",")}}`;
  }
  return JSON.stringify(value) ?? "null";
}

/** What a record keeps of a payload: a digest of its canonical JSON, never the body itself. */
export function payloadFingerprint(value: unknown): string {
  return createHash("sha256").update(canonicalJson(value)).digest("base64");
}
