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
