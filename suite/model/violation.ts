import type { RequirementId } from "../../requirements/catalog.ts";

/** An operation named in words: its number in the history (#n), kept as a number. */
export interface OpRef {
  readonly op: number;
}

/**
 * Words that may name operations: text, with each operation named kept as data, so that a
 * history numbered afresh (a shrunk counterexample) renames them without touching the text.
 * They read as "#n" once rendered (`render`), at display time.
 */
export interface Words {
  readonly parts: readonly (string | OpRef)[];
}

const isRef = (part: string | OpRef): part is OpRef => typeof part !== "string";

/** `parts` as words, adjacent texts joined. */
function joinedTexts(parts: readonly (string | OpRef)[]): Words {
  const out: (string | OpRef)[] = [];
  for (const part of parts) {
    const last = out.at(-1);
    if (typeof part === "string" && typeof last === "string") out[out.length - 1] = last + part;
    else if (part !== "") out.push(part);
  }
  return { parts: out };
}

const isWords = (value: unknown): value is Words =>
  typeof value === "object" && value !== null && Array.isArray((value as { parts?: unknown }).parts);

/**
 * Words from a template: a `#` right before a number interpolated (`#${op.index}`) names that
 * operation; words interpolated are taken in as they are; anything else is text.
 */
export function words(strings: TemplateStringsArray, ...values: readonly unknown[]): Words {
  const parts: (string | OpRef)[] = [];
  strings.forEach((text, i) => {
    if (i === values.length) {
      parts.push(text);
      return;
    }
    const value = values[i];
    if (typeof value === "number" && text.endsWith("#")) parts.push(text.slice(0, -1), { op: value });
    else if (isWords(value)) parts.push(text, ...value.parts);
    else parts.push(text, String(value));
  });
  return joinedTexts(parts);
}

/** `list` joined by `separator`. */
export function joinWords(list: readonly Words[], separator: string): Words {
  return joinedTexts(list.flatMap((w, i) => (i === 0 ? [...w.parts] : [separator, ...w.parts])));
}

/** The words as a person reads them: each operation as #n. */
export const render = (w: Words): string => w.parts.map((part) => (isRef(part) ? `#${part.op}` : part)).join("");

/** The words with each operation's number mapped (one not in `numbers` keeps its own). */
export const renumberWords = (w: Words, numbers: ReadonlyMap<number, number>): Words => ({
  parts: w.parts.map((part) => (isRef(part) ? { op: numbers.get(part.op) ?? part.op } : part)),
});

/** What the model found wrong: the requirement, in words, and the operations that show it. */
export interface Violation {
  readonly requirement: RequirementId;
  readonly message: Words;
  /** The operations involved (#n of the history), the one that could not be explained last. */
  readonly ops: readonly number[];
  /** What the model expected instead, in words, when that is not already the message. */
  readonly expected?: Words;
  /** The operation (#n) whose exchange a listing lacks, when its items showed which one. */
  readonly lost?: number;
  /** The operation (#n) whose exchange a listing shows in part (its message without the rest). */
  readonly inPart?: number;
  /**
   * Set when the exchange shown in part is one whose answer was delivered whole (not unfinished):
   * a plainer reading names one its client left, where a service that stores the answer only once
   * delivered loses it (service.ts, strayingOf).
   */
  readonly inPartDelivered?: true;
  /**
   * Set when the verdict rests on this world's guess at an order: only the order of the items
   * contradicts its order of the exchanges, or a listing it put after an overlapping delete.
   */
  readonly byOrder?: true;
  /**
   * Set when the verdict rests only on the counting the listings' totals taught this world: a
   * total nothing this world knows of explains (the verdict names no exchange), a total above
   * what that counting allows, or an exchange on a page where it puts none of its messages.
   */
  readonly onCounting?: true;
  /**
   * Set when the page shows a changed copy of another exchange's text (items.ts `originOf`) and
   * none of the exchange this verdict names lost: the page more likely holds that other exchange,
   * stored changed, and a world where it took effect names the right one.
   */
  readonly anotherShownChanged?: true;
  /**
   * Set when the page shows the lost exchange's own text changed (items.ts `changedCopiesOf`):
   * the service stored it so, which no lag explains and no later read can take back.
   */
  readonly shownChanged?: true;
}

export const violation = (
  requirement: RequirementId,
  message: Words,
  ops: readonly number[],
  expected?: Words,
): Violation => (expected === undefined ? { requirement, message, ops } : { requirement, message, ops, expected });

/** The violation with every operation it names (its words, its operations, the one lost) numbered by `numbers`. */
export function renumberViolation(v: Violation, numbers: ReadonlyMap<number, number>): Violation {
  const to = (n: number) => numbers.get(n) ?? n;
  return {
    ...v,
    message: renumberWords(v.message, numbers),
    ops: v.ops.map(to),
    ...(v.expected === undefined ? {} : { expected: renumberWords(v.expected, numbers) }),
    ...(v.lost === undefined ? {} : { lost: to(v.lost) }),
  };
}

/** The violation's message and expectation as a person reads them. */
export const describeViolation = (
  v: Violation,
): { readonly message: string; readonly expected: string | undefined } => ({
  message: render(v.message),
  expected: v.expected === undefined ? undefined : render(v.expected),
});
