/**
 * Fresh v4 UUIDs for conversations and messages, written as flat 36-byte strings: at a million
 * messages, the string trees randomUUID builds would cost several times the memory.
 */
import { randomFillSync } from "node:crypto";

const DIGITS = Buffer.from("0123456789abcdef", "latin1");
/** Random bytes drawn in batches, as randomUUID does: one fill serves 256 ids. */
const random = Buffer.alloc(16 * 256);
let nextRandom = random.length;
/** The 36 ASCII characters of the id being written. */
const text = Buffer.alloc(36);

/**
 * A fresh v4 UUID as a flat 36-byte string. `randomUUID()` assembles its result by
 * concatenation, and V8 keeps such a string as a tree of pieces (over 400 bytes), which
 * matters at a million messages; writing the characters into a buffer and reading them
 * back once as latin1 gives one flat string (about 56 bytes), at a fraction of the cost of
 * copying randomUUID's result through a Buffer.
 */
export function newUuid(): string {
  if (nextRandom === random.length) {
    randomFillSync(random);
    nextRandom = 0;
  }
  let at = 0;
  for (let i = 0; i < 16; i++) {
    let byte = random[nextRandom + i] ?? 0;
    if (i === 6)
      byte = (byte & 0x0f) | 0x40; // version 4
    else if (i === 8) byte = (byte & 0x3f) | 0x80; // RFC 4122 variant
    if (i === 4 || i === 6 || i === 8 || i === 10) text[at++] = 0x2d; // "-"
    text[at++] = DIGITS[byte >> 4] ?? 0x30;
    text[at++] = DIGITS[byte & 15] ?? 0x30;
  }
  nextRandom += 16;
  return text.toString("latin1", 0, 36);
}
