/**
 * fast-check arbitraries for what the checks send: message text, metadata, external
 * references, request payloads and listing parameters. Everything stays inside what the
 * spec promises to accept, so a failure is the target's, never the generator's.
 */
import fc from "fast-check";

/** Texts a user could type that often break naive handling: emoji, RTL, combining marks. */
const TRICKY_TEXTS = [
  "👩🏽‍💻 café ☕️",
  "مرحبا، كيف أستطيع المساعدة؟",
  "שלום עולם",
  "e\u0301 n\u0303 a\u030a",
  "Z\u0351\u0368a\u0364\u0352l\u0353g\u0344o",
  "日本語のテキスト",
  "🇫🇷🇯🇵 flags",
  "line one\nline two\ttabbed",
  "quotes \" ' ` and \\ backslash",
  '{"looks":"like json"}',
] as const;

/**
 * Control characters other than tab and newline are left out: the spec does not restrict
 * message content, but they are not text a user types and are not what these checks are about.
 * NUL is excluded by the same rule.
 */
const hasControl = (text: string) => /[\u0000-\u0008\u000b-\u001f\u007f]/.test(text);

/** A short piece of Unicode text (full graphemes: emoji, RTL, combining marks; no NUL). */
export function unicodeText(maxLength = 40): fc.Arbitrary<string> {
  return fc.oneof(
    fc.constantFrom(...TRICKY_TEXTS),
    fc.string({ unit: "grapheme", maxLength }).filter((s) => !hasControl(s)),
    fc.string({ unit: "grapheme-composite", maxLength }).filter((s) => !hasControl(s)),
  );
}

/** Keys that break code which treats user data as object properties. */
const HOSTILE_KEYS = ["__proto__", "constructor", "prototype", "toString", "hasOwnProperty", "valueOf"] as const;

/** "Small" is measured in UTF-16 units too: one grapheme (a flag, a family emoji) can take ten or more. */
const short = (maxUnits: number) => (s: string) => s.length <= maxUnits;

const metadataKey = fc.oneof(
  fc.constantFrom(...HOSTILE_KEYS),
  fc.string({ unit: "grapheme-ascii", minLength: 1, maxLength: 24 }).filter((s) => !hasControl(s)),
  fc.string({ unit: "grapheme", minLength: 1, maxLength: 6 }).filter((s) => !hasControl(s) && short(32)(s)),
);
const metadataValue = fc.oneof(unicodeText(40).filter(short(200)), fc.constantFrom("", "0", "true", "null"));

/**
 * A small flat object of string values (at most 4 keys). Built with Object.fromEntries, which
 * defines own properties, so a `__proto__` key is real data in the JSON, not a prototype.
 */
export function metadata(): fc.Arbitrary<Record<string, string>> {
  return fc
    .uniqueArray(fc.tuple(metadataKey, metadataValue), { maxLength: 4, selector: ([key]) => key })
    .map((entries) => Object.fromEntries(entries) as Record<string, string>);
}

/** `external_reference`: absent (undefined), null, or a short string. */
export function externalReference(): fc.Arbitrary<string | null | undefined> {
  return fc.oneof(
    fc.constant(undefined),
    fc.constant(null),
    fc.string({ unit: "grapheme-ascii", maxLength: 40 }).filter((s) => !hasControl(s)),
    unicodeText(20).filter(short(100)),
  );
}

/** The free parts of a create request; the message prefix and conversation are the check's. */
export interface PayloadParts {
  /** Appended to the run-scoped message, so every text the run sends stays recognisable. */
  text: string;
  metadata: Record<string, string> | undefined;
  externalReference: string | null | undefined;
  /** Continue an earlier conversation of the check (when it has one) instead of starting one. */
  continueConversation: boolean;
}

export function payloadParts(): fc.Arbitrary<PayloadParts> {
  return fc.record({
    text: unicodeText(),
    metadata: fc.option(metadata(), { nil: undefined }),
    externalReference: externalReference(),
    continueConversation: fc.boolean(),
  });
}

/** Builds a request body; optional fields are left out entirely when undefined. */
export function requestBody(message: string, parts: PayloadParts, conversationId?: string): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries({
      message,
      conversation_id: conversationId,
      external_reference: parts.externalReference,
      metadata: parts.metadata,
    }).filter(([, value]) => value !== undefined),
  );
}

/** A `page` or `page_size` query value: valid, out of bounds, or not an integer at all. */
export type QueryValue = string | number | undefined;

/** `page` values: the first pages, zero, negatives, non-integers, garbage, far past the end. */
export function pageParam(): fc.Arbitrary<QueryValue> {
  return fc.oneof(
    fc.integer({ min: 1, max: 4 }),
    fc.constantFrom<QueryValue>(undefined, 0, -1, "1.5", "abc", "", 1000, "1e0", " 1"),
    fc.integer({ min: -5, max: 8 }),
  );
}

/** `page_size` values: 1, 50, 100, 101, zero, negatives, non-integers, garbage, huge. */
export function pageSizeParam(): fc.Arbitrary<QueryValue> {
  return fc.oneof(
    fc.integer({ min: 1, max: 8 }),
    fc.constantFrom<QueryValue>(undefined, 0, -1, 1, 50, 100, 101, 1000, "1.5", "abc", ""),
    fc.integer({ min: 95, max: 105 }),
  );
}

/** A value is a valid page / page_size exactly when it is a decimal integer in bounds. */
export function asValidInteger(value: QueryValue, min: number, max: number): number | undefined {
  if (typeof value === "number") return Number.isInteger(value) && value >= min && value <= max ? value : undefined;
  return undefined;
}
