/**
 * Where the messages the history sent show up in a page of items. The spec does not show an
 * item's fields, so an item "shows" a message when any of its strings (at any depth, as in
 * `content: [{type: "text", text}]`) is that message, compared by textKey: a service may store
 * text in another Unicode normalisation form or without the spaces around it, never otherwise. Messages carry the run id and
 * the operation's number, so no answer repeats one by chance.
 */

export interface Mark {
  /** Position of the item on its page. */
  readonly position: number;
  readonly message: string;
}

const MAX_DEPTH = 5;

/** What two texts must share to be one message: the same characters once composed (NFC) and trimmed. */
export const textKey = (text: string) => text.normalize("NFC").trim();

function strings(value: unknown, depth: number, out: Set<string>): void {
  if (typeof value === "string") out.add(textKey(value));
  else if (depth < MAX_DEPTH && value !== null && typeof value === "object") {
    for (const inner of Array.isArray(value) ? value : Object.values(value)) strings(inner, depth + 1, out);
  }
}

/** The strings of a page's items that show none of `known`: ids, roles, answers, and texts a service changed. */
export function otherTexts(items: readonly unknown[], known: ReadonlySet<string>): string[] {
  const found = new Set<string>();
  for (const item of items) strings(item, 0, found);
  return [...found].filter((text) => !known.has(text));
}

const sharedStart = (a: string, b: string) => {
  let n = 0;
  while (n < a.length && n < b.length && a[n] === b[n]) n++;
  return n;
};

/**
 * The message of `known` that `text` is a changed copy of: the one it shares the longest start
 * with, when no other shares as long a one. A service that changes what it stores (characters
 * it cannot keep, an escape applied twice, a column that truncates) keeps the start of a text,
 * where the history puts each message's own tag; an id, a role or an answer shares no start
 * with one message more than with the others.
 */
export function originOf(text: string, known: Iterable<string>): string | undefined {
  let best: string | undefined;
  let longest = 0;
  let tied = false;
  for (const message of known) {
    const shared = sharedStart(text, message);
    if (shared > longest) [best, longest, tied] = [message, shared, false];
    else if (shared === longest) tied = true;
  }
  return tied || longest === 0 ? undefined : best;
}

const firstWord = (text: string) => /^\S*/.exec(text)?.[0] ?? "";

/** The shortest first word a message's tag may have: a label shorter than this could begin an answer by chance. */
const MIN_TAG_LENGTH = 8;

/**
 * The messages of which a page shows a changed copy: a string that begins with the message's
 * first word (the history's tag for it, unique to the run and the operation) but is not the
 * message, nor the whole message with more after it. Only a text the service was sent begins so:
 * a service that lists the texts it was sent, and stored this one changed (characters it cannot
 * keep, an escape applied twice, a column that truncates).
 */
export function changedCopiesOf(items: readonly unknown[], messages: readonly string[]): string[] {
  const found = new Set<string>();
  for (const item of items) strings(item, 0, found);
  return messages.filter((message) => {
    const sent = textKey(message);
    const tag = firstWord(sent);
    if (tag.length < MIN_TAG_LENGTH) return false;
    return [...found].some((text) => firstWord(text) === tag && !text.startsWith(sent));
  });
}

/** The items of a page that show one of `known`, in page order. */
export function marksOf(items: readonly unknown[], known: ReadonlySet<string>): Mark[] {
  const marks: Mark[] = [];
  items.forEach((item, position) => {
    const found = new Set<string>();
    strings(item, 0, found);
    for (const text of found) if (known.has(text)) marks.push({ position, message: text });
  });
  return marks;
}
