/**
 * Canonical JSON: the one text of "the same payload" whatever its key order and spacing. The
 * fake fingerprints idempotency records with it, and the suite's model and traffic judge
 * compare payloads with it, so both sides agree on what counts as the same body.
 */

/** Text written as is, as opposed to a value still to be written. */
class Token {
  constructor(readonly text: string) {}
}
const COMMA = new Token(",");
const CLOSE_ARRAY = new Token("]");
const CLOSE_OBJECT = new Token("}");

/**
 * Canonical JSON of a JSON value: object keys sorted, no whitespace. Two bodies that are equal
 * as JSON (whatever their key order or spacing) get the same text. Keys are read with
 * Object.entries, so "__proto__" is an ordinary key here. As JSON.stringify does, an object
 * leaves out a field whose value JSON cannot hold (undefined, a function, a symbol) and an array
 * writes it as null, so a body built in code gets the text of what is sent.
 * It walks an explicit stack rather than recursing: a body may nest arrays thousands deep
 * inside a field the schema ignores, and that must not overflow the call stack (a 500).
 */
export function canonicalJson(value: unknown): string {
  return flatObjectJson(value) ?? nestedJson(value);
}

const byCodeUnits = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** A value JSON.stringify leaves out of an object. */
const unwritable = (value: unknown) => value === undefined || typeof value === "function" || typeof value === "symbol";

/**
 * The usual body, an object of strings, numbers, booleans and nulls, written directly;
 * undefined for anything else. The text is the same `nestedJson` writes.
 */
function flatObjectJson(value: unknown): string | undefined {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return undefined;
  const keys = Object.keys(value).sort(byCodeUnits);
  let out = "{";
  for (const key of keys) {
    const item: unknown = (value as Record<string, unknown>)[key];
    if (typeof item === "object" && item !== null) return undefined;
    if (unwritable(item)) continue;
    out += `${out.length > 1 ? "," : ""}${JSON.stringify(key)}:${JSON.stringify(item)}`;
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
      const entries = Object.entries(item)
        .filter(([, child]) => !unwritable(child))
        .sort(([a], [b]) => byCodeUnits(a, b));
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
