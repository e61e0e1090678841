/**
 * FNV-1a (32 bit) over the UTF-16 code units of `seed` and `text`: a tiny, stable hash so
 * that every choice of the answer engine is a pure function of (seed, text).
 */
export function seededHash(seed: number, text: string): number {
  let hash = 0x811c9dc5 ^ (seed >>> 0);
  hash = Math.imul(hash, 0x01000193) >>> 0;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash >>> 0;
}
