/**
 * What of an Idempotency-Key a service may refuse. The spec names no format or length for a key,
 * and services limit both (64 characters of letters, digits, '-' and '_' is a common rule; 45 and
 * 255 are others). A key of at most 45 letters, digits, '-' and '_' (a run's own keys, UUIDs) is
 * taken by every service; a longer one, or one with other characters, may be refused for what it
 * is, with the status of a refused body, unless the service took one as long and of those
 * characters before (a rule of length and pattern takes every key within it).
 */

/** Longer than this, a key may be beyond a service's limit. */
const PLAIN_KEY_LENGTH = 45;

/** The forms of a key that a service may refuse. */
export type OpenKeyForm = "long" | "punctuation";

/** Characters of a key beyond letters, digits, '-' and '_'. */
const keyMarks = (key: string): string[] => [...key].filter((c) => !/[A-Za-z0-9_-]/.test(c));

export function openKeyForms(key: string): OpenKeyForm[] {
  return [
    ...(key.length > PLAIN_KEY_LENGTH ? (["long"] as const) : []),
    ...(keyMarks(key).length > 0 ? (["punctuation"] as const) : []),
  ];
}

/** The keys a service has shown it takes: the longest, and the characters beyond letters, digits, '-' and '_' in any. */
export interface KeysTaken {
  readonly longest: number;
  readonly marks: ReadonlySet<string>;
}

export const NO_KEYS_TAKEN: KeysTaken = { longest: 0, marks: new Set() };

/** What `taken` becomes once the service took `key`. */
export function withKeyTaken(taken: KeysTaken, key: string): KeysTaken {
  const marks = keyMarks(key).filter((c) => !taken.marks.has(c));
  if (key.length <= taken.longest && marks.length === 0) return taken;
  return { longest: Math.max(taken.longest, key.length), marks: new Set([...taken.marks, ...marks]) };
}

/** Whether a service that took the keys `taken` shows may still refuse `key` for what it is. */
export const mayRefuseKey = (key: string, taken: KeysTaken): boolean =>
  key.length > Math.max(PLAIN_KEY_LENGTH, taken.longest) || keyMarks(key).some((c) => !taken.marks.has(c));
