/**
 * The shapes of every request field the property sends, as fast-check arbitraries, one per
 * class of space.ts. Whatever fast-check draws is wrapped around the target's own run-scoped
 * names (a message tag, a key), so no text or key ever repeats an earlier run's by chance and
 * the model can tell which exchange an item shows.
 */
import fc from "fast-check";
import type { KeyShape, MessageClass, MetadataClass, NearMiss } from "./space.ts";

const codePoints = (min: number, max: number, exclude: (cp: number) => boolean = () => false) =>
  fc
    .integer({ min, max })
    .filter((cp) => !exclude(cp))
    .map((cp) => String.fromCodePoint(cp));

/** Noncharacters and surrogates are valid JSON escapes but no text: a service may fairly refuse them. */
const nonCharacter = (cp: number) =>
  (cp >= 0xd800 && cp <= 0xdfff) || (cp >= 0xfdd0 && cp <= 0xfdef) || (cp & 0xfffe) === 0xfffe;

const textOf = (unit: fc.Arbitrary<string>, min = 1, max = 24) =>
  fc.array(unit, { minLength: min, maxLength: max }).map((parts) => parts.join(""));

const ascii = fc
  .string({ unit: "grapheme-ascii", minLength: 1, maxLength: 24 })
  .map((s) => s.replace(/[\x00-\x1f\x7f]/g, "a"));
const twoByte = textOf(codePoints(0xa0, 0x7ff));
const threeByte = textOf(codePoints(0x800, 0xffff, nonCharacter));
/** Astral text: emoji and the rest of the supplementary planes (4-byte UTF-8, surrogate pairs in JSON). */
const fourByte = textOf(fc.oneof(codePoints(0x1f300, 0x1faff), codePoints(0x10000, 0x10ffff, nonCharacter)), 1, 12);
const combining = textOf(
  fc
    .tuple(fc.constantFrom("a", "e", "o", "n", "u"), textOf(codePoints(0x300, 0x36f), 1, 3))
    .map(([base, marks]) => base + marks),
  1,
  8,
);
/**
 * Text of a class, holding at least one character that defines the class wherever the rest lands:
 * a "JSON escapes" text made only of spaces and letters would cover its cell without testing it.
 */
const withOneOf = (defining: fc.Arbitrary<string>, unit: fc.Arbitrary<string>, max: number) =>
  fc
    .tuple(textOf(unit, 0, max - 1), defining, textOf(unit, 0, max - 1))
    .map(([before, one, after]) => `${before}${one}${after}`);

const rightToLeft = withOneOf(
  fc.oneof(codePoints(0x5d0, 0x5ea), codePoints(0x627, 0x64a)),
  fc.oneof(codePoints(0x5d0, 0x5ea), codePoints(0x627, 0x64a), fc.constant(" "), fc.constant("\u200f")),
  12,
);
const zeroWidthCharacter = fc.constantFrom("\u200b", "\u200c", "\u200d", "\u2060", "\ufeff");
const zeroWidth = withOneOf(zeroWidthCharacter, fc.oneof(zeroWidthCharacter, fc.constantFrom("a", "b", "c")), 8);
/** Characters JSON must escape (a quote, a backslash, control characters), beside some it may leave as they are. */
const mustEscape = fc.constantFrom('"', "\\", "\n", "\t", "\r", "\b", "\f", "\u001f", "\\u0041");
const jsonEscapes = withOneOf(
  mustEscape,
  fc.oneof(mustEscape, fc.constantFrom("/", "</script>", "'"), fc.constantFrom("x", "y", " ")),
  8,
);
const long = fc.tuple(fc.integer({ min: 2048, max: 6144 }), fc.oneof(ascii, twoByte, fourByte)).map(([size, seed]) => {
  const unit = `${seed} lorem ipsum `;
  return unit
    .repeat(Math.ceil(size / unit.length))
    .slice(0, size)
    .replace(/[\ud800-\udbff]$/, "");
});
/** Letters a canonical decomposition changes: the same text written precomposed (NFC) and decomposed (NFD). */
const normalisable = textOf(fc.constantFrom("é", "ñ", "ü", "Å", "ç", "ő", "ṩ", "ḱ"), 2, 10);

/** The text a message of each class carries after its tag. */
export function messageText(cls: MessageClass): fc.Arbitrary<string> {
  switch (cls) {
    case "ascii":
      return ascii;
    case "two-byte":
      return twoByte;
    case "three-byte":
      return threeByte;
    case "four-byte":
      return fourByte;
    case "combining":
      return combining;
    case "right-to-left":
      return rightToLeft;
    case "zero-width":
      return zeroWidth;
    case "json-escapes":
      return jsonEscapes;
    case "long":
      return long;
    case "surrounding-spaces":
    case "same-text-twice":
      return ascii;
    case "normalisation-forms":
      return normalisable.map((s) => s.normalize("NFC"));
  }
}

/** The whole message: the run-scoped tag keeps it unique; spaces around it for that class. */
export function composeMessage(tag: string, cls: MessageClass, text: string): string {
  if (cls === "surrounding-spaces") return `  ${tag} ${text}\t `;
  return `${tag} ${text}`;
}

/** The other normalisation form of a message: the same text, decomposed (it was sent composed). */
export const otherNormalisation = (message: string) => message.normalize("NFD");

export function metadataOf(
  cls: Exclude<MetadataClass, "absent" | "reordered-keys">,
): fc.Arbitrary<Record<string, unknown>> {
  const value = fc.oneof(ascii, twoByte, fourByte);
  switch (cls) {
    case "empty":
      return fc.constant({});
    case "flat":
      return fc.record({ trace_id: value, source: fc.constantFrom("web", "mobile", "batch") });
    case "nested":
      return fc.record({ trace_id: value, client: fc.record({ name: value, build: fc.record({ channel: ascii }) }) });
    case "arrays":
      return fc.record({ trace_id: value, tags: fc.array(value, { minLength: 0, maxLength: 3 }) });
    case "numbers":
      return fc.record({
        trace_id: value,
        attempt: fc.integer({ min: 0, max: 1_000_000 }),
        score: fc.double({ min: -1e6, max: 1e6, noNaN: true, noDefaultInfinity: true }),
      });
    case "nulls":
      return fc.record({ trace_id: value, parent: fc.constant(null) });
  }
}

/** The same object with its keys in the reverse order, at every depth: the same payload written otherwise (IDEM-8). */
export function reorderKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(reorderKeys);
  if (value === null || typeof value !== "object") return value;
  return Object.fromEntries(
    Object.entries(value)
      .reverse()
      .map(([k, v]) => [k, reorderKeys(v)]),
  );
}

export const referenceText = fc.oneof(ascii, twoByte, fourByte, rightToLeft).map((s) => s.trim() || "ref");

/** Characters clients put in keys besides letters and digits (header-safe, no spaces). */
const KEY_PUNCTUATION = "-._~+/=:@!*";

/**
 * A key of the given shape around the target's run-scoped name. UUIDs are derived from it
 * (FNV-1a, version 4 bits), so two runs never share one.
 */
export function shapeKey(base: string, shape: KeyShape): fc.Arbitrary<string> {
  switch (shape) {
    case "uuid":
      return fc.constant(uuidFrom(base));
    case "long-token":
      return fc
        .integer({ min: 100, max: 200 })
        .map((length) => (base.replace(/[^A-Za-z0-9_-]/g, "_") + "_").padEnd(length, "0123456789abcdef"));
    case "mixed-case":
      return fc
        .array(fc.boolean(), { minLength: base.length, maxLength: base.length })
        .map(
          (upper) => [...base].map((c, i) => (upper[i] === true ? c.toUpperCase() : c.toLowerCase())).join("") + "Ab",
        );
    case "punctuation":
      return fc
        .array(fc.constantFrom(...KEY_PUNCTUATION), { minLength: 2, maxLength: 6 })
        .map((marks) => `${base}${marks.join("")}x`);
  }
}

/**
 * A key that differs from `earlier` in one small way: what a careless comparison, a collation
 * or a truncating column confuses. Never a key the run could draw afresh: drawn keys end in a
 * digit, a hex digit, "Ab" or "x", never in "z", "y" or "-2", and prefixes are of long keys only.
 * Every change is at the key's end, so that a column that cuts keys anywhere before it confuses
 * the two as well: one request tries the comparison and the width at once.
 */
export function nearMiss(earlier: string, how: NearMiss): string {
  switch (how) {
    case "one-character-changed":
      return earlier.slice(0, -1) + (earlier.endsWith("z") ? "y" : "z");
    case "case-changed": {
      // The last letter flipped: a collation that folds case takes it for the earlier key, and so
      // does a column shorter than the key; it is a one-character change too.
      const chars = [...earlier];
      const at = chars.findLastIndex((c) => c.toUpperCase() !== c.toLowerCase());
      const letter = chars[at];
      if (letter === undefined) return `${earlier}-2`;
      chars[at] = letter === letter.toUpperCase() ? letter.toLowerCase() : letter.toUpperCase();
      return chars.join("");
    }
    case "prefix":
      return earlier.slice(0, Math.max(1, earlier.length - 3));
    case "suffix":
      return `${earlier}-2`;
  }
}

/** Every kind of near-miss `key` is of `earlier`: a last letter flipped is a case change and a one-character change. */
export function nearMissKinds(earlier: string, key: string): NearMiss[] {
  const kinds: NearMiss[] = [];
  if (key !== earlier && key.toLowerCase() === earlier.toLowerCase()) kinds.push("case-changed");
  if (key.length === earlier.length && [...key].filter((c, i) => c !== earlier[i]).length === 1)
    kinds.push("one-character-changed");
  if (key.length < earlier.length && earlier.startsWith(key)) kinds.push("prefix");
  if (key.length > earlier.length && key.startsWith(earlier)) kinds.push("suffix");
  return kinds;
}

function uuidFrom(text: string): string {
  const bytes: number[] = [];
  for (let round = 0; bytes.length < 16; round++) {
    let hash = 0x811c9dc5 ^ round;
    for (const char of text) hash = Math.imul(hash ^ char.charCodeAt(0), 0x01000193) >>> 0;
    bytes.push(hash & 0xff, (hash >>> 8) & 0xff, (hash >>> 16) & 0xff, (hash >>> 24) & 0xff);
  }
  bytes[6] = ((bytes[6] ?? 0) & 0x0f) | 0x40;
  bytes[8] = ((bytes[8] ?? 0) & 0x3f) | 0x80;
  const hex = bytes.map((b) => b.toString(16).padStart(2, "0")).join("");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;
}
