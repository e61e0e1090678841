/**
 * A message column that does not keep what it is given, on one endpoint's storage path (the
 * other writes through a table or a service without the fault). Mutants only
 * (behavior.broken.messageColumn):
 *  - "astral-as-question-marks": MySQL's `utf8` (utf8mb3) holds no 4-byte UTF-8 character, and a
 *    connection that converts instead of failing stores each as "?";
 *  - "escaped-twice": the message is JSON-encoded once more before it is stored, so a newline
 *    is kept as a backslash and an "n", a quote as a backslash and a quote;
 *  - "first-1024": a VARCHAR(1024) in a non-strict server truncates longer messages silently.
 */
import type { Behavior } from "../behavior/behavior.ts";

/** Characters a VARCHAR(1024) keeps (MySQL counts characters, that is code points). */
export const MESSAGE_COLUMN_CHARS = 1024;

const ASTRAL = /[\u{10000}-\u{10FFFF}]/gu;

/** The user message as this endpoint's storage keeps it. */
export function storedUserText(
  broken: Pick<Behavior["broken"], "messageColumn">,
  operation: "create" | "stream",
  message: string,
): string {
  const column = broken.messageColumn;
  if (column === null || column.on !== operation) return message;
  switch (column.alters) {
    case "astral-as-question-marks":
      return message.replace(ASTRAL, "?");
    case "escaped-twice":
      return JSON.stringify(message).slice(1, -1);
    case "first-1024":
      return Array.from(message).slice(0, MESSAGE_COLUMN_CHARS).join("");
  }
}
