/**
 * UUIDv7 ids (the uuid-v7 variant): time-ordered, so the ids one fake mints sort in the order it
 * minted them; written flat, as ids.ts writes v4.
 */
import { randomFillSync } from "node:crypto";
import type { Clock } from "../runtime/clock.ts";

const DIGITS = Buffer.from("0123456789abcdef", "latin1");
/** Largest value of the 12-bit counter in rand_a. */
const MAX_COUNTER = 0xfff;

/**
 * UUIDv7 (RFC 9562) minted from `clock`: 48 bits of Unix milliseconds, then a 12-bit counter
 * (RFC 9562 method 1) that starts at a random value below 1,024 each millisecond and counts
 * up within it, then 62 random bits. Ids of one generator so sort in the order they were
 * minted, also within a millisecond and if the clock steps back; a counter that runs out
 * moves on to the next millisecond. Written flat into a buffer, as ids.ts does for v4.
 */
export function uuidV7Generator(clock: Clock): () => string {
  const bytes = Buffer.alloc(16);
  const text = Buffer.alloc(36);
  let lastMs = -1;
  let counter = 0;
  return () => {
    randomFillSync(bytes, 6);
    let ms = clock.now();
    if (ms > lastMs) {
      counter = (((bytes[6] ?? 0) << 8) | (bytes[7] ?? 0)) & 0x3ff;
    } else if (counter < MAX_COUNTER) {
      ms = lastMs;
      counter++;
    } else {
      ms = lastMs + 1;
      counter = 0;
    }
    lastMs = ms;
    // 48-bit big-endian milliseconds: the top 16 bits, then the low 32.
    bytes.writeUInt16BE(Math.floor(ms / 2 ** 32) & 0xffff, 0);
    bytes.writeUInt32BE(ms >>> 0, 2);
    bytes[6] = 0x70 | (counter >> 8); // version 7
    bytes[7] = counter & 0xff;
    bytes[8] = ((bytes[8] ?? 0) & 0x3f) | 0x80; // RFC 9562 variant
    let at = 0;
    for (let i = 0; i < 16; i++) {
      const byte = bytes[i] ?? 0;
      if (i === 4 || i === 6 || i === 8 || i === 10) text[at++] = 0x2d; // "-"
      text[at++] = DIGITS[byte >> 4] ?? 0x30;
      text[at++] = DIGITS[byte & 15] ?? 0x30;
    }
    return text.toString("latin1", 0, 36);
  };
}
