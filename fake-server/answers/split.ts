/**
 * An answer cut into the deltas of a stream, as a pure function of (seed, text), so a replay
 * re-emits the same deltas; an answer rule's own deltas are sent as given.
 */
import type { Behavior } from "../behavior/behavior.ts";
import { seededHash } from "./hash.ts";

/**
 * Splits an answer into the deltas of a stream: between `deltaCount.min` and `.max` pieces
 * (fewer only when the text has fewer words), cut at word starts so that each piece but
 * the last ends with its separating space. The pieces concatenate exactly to `text`, and
 * the split is a pure function of (seed, text), so a replay re-emits the same deltas.
 */
export function splitIntoDeltas(
  text: string,
  seed: number,
  behavior: Pick<Behavior, "deltaCount"> & { readonly broken?: Pick<Behavior["broken"], "deltasTrimmed"> },
): string[] {
  const { min, max } = behavior.deltaCount;
  const wordStarts: number[] = [];
  for (let i = 1; i < text.length; i++) {
    if (text[i - 1] === " " && text[i] !== " ") wordStarts.push(i);
  }
  const wanted = min + (seededHash(seed, text) % (max - min + 1));
  const count = Math.max(1, Math.min(wanted, wordStarts.length + 1));
  const deltas: string[] = [];
  let start = 0;
  for (let j = 1; j < count; j++) {
    // Evenly spaced over the word starts; strictly increasing because count - 1 <= wordStarts.length.
    const cut = wordStarts[Math.floor((j * wordStarts.length) / count)] ?? text.length;
    deltas.push(text.slice(start, cut));
    start = cut;
  }
  deltas.push(text.slice(start));
  // Mutant only: trimmed pieces lose the spaces between them.
  return behavior.broken?.deltasTrimmed ? deltas.map((delta) => delta.trim()) : deltas;
}

/** The deltas a stream sends for an answer: the ones an answer rule gave, else the usual split. */
export function deltasOf(
  answer: { readonly text: string; readonly deltas?: readonly string[] },
  seed: number,
  behavior: Parameters<typeof splitIntoDeltas>[2],
): string[] {
  if (answer.deltas === undefined) return splitIntoDeltas(answer.text, seed, behavior);
  return behavior.broken?.deltasTrimmed ? answer.deltas.map((delta) => delta.trim()) : [...answer.deltas];
}
