import fc from "fast-check";
import { expect, test } from "vitest";
import { Citation } from "../../schemas/index.ts";
import { CORPUS, STOP_WORDS, normaliseWords } from "./corpus.ts";
import { seededHash } from "./hash.ts";
import { createAnswerEngine } from "./engine.ts";

test("the corpus holds 8 to 12 documents whose citations match the fake's Citation schema", () => {
  expect(CORPUS.length).toBeGreaterThanOrEqual(8);
  expect(CORPUS.length).toBeLessThanOrEqual(12);
  for (const doc of CORPUS) Citation.parse(doc.citation);
  expect(new Set(CORPUS.map((doc) => doc.citation.document_id)).size).toBe(CORPUS.length);
});

test("a question about passwords cites the password article and mentions it by title", () => {
  const answer = createAnswerEngine(1).answer("I forgot my password, how do I reset it?");
  expect(answer.citations.map((c) => c.document_id)).toContain("doc-reset-password");
  expect(answer.text).toContain('"Resetting your password"');
});

test("the best-overlapping documents come first, at most two", () => {
  const answer = createAnswerEngine(1).answer("export my data to CSV and connect my Google calendar");
  expect(answer.citations.map((c) => c.document_id)).toEqual(["doc-export", "doc-calendar"]);
});

test("a message matching nothing still gets one seeded citation", () => {
  const answer = createAnswerEngine(7).answer("zzz qqq");
  expect(answer.citations).toHaveLength(1);
  expect(answer.text).toContain(answer.citations[0]?.title);
});

test("answers are a pure function of seed and message, and citations are shared, not copied", () => {
  fc.assert(
    fc.property(fc.string({ maxLength: 200 }), fc.nat(1000), (message, seed) => {
      const first = createAnswerEngine(seed).answer(message);
      const second = createAnswerEngine(seed).answer(message);
      expect(second.text).toBe(first.text);
      expect(second.citations).toBe(first.citations);
      for (const citation of first.citations) {
        expect(CORPUS.some((doc) => doc.citation === citation)).toBe(true);
        expect(first.text).toContain(citation.title);
      }
    }),
    { numRuns: 100 },
  );
});

test("different seeds choose different fallbacks for some unmatched message", () => {
  const chosen = new Set(
    Array.from({ length: 20 }, (_, seed) => createAnswerEngine(seed).answer("zzz qqq").citations[0]?.document_id),
  );
  expect(chosen.size).toBeGreaterThan(1);
});

/** The engine's rule written out plainly (score every document, sort, take two): the indexed engine must agree. */
function plainAnswerText(seed: number, message: string): { text: string; ids: string[] } {
  const hash = seededHash(seed, message);
  const words = normaliseWords(message);
  const matches = CORPUS.map((doc, index) => ({
    doc,
    index,
    score: [...words].filter((word) => doc.keywords.has(word)).length,
  }))
    .filter((entry) => entry.score > 0)
    .sort((a, b) => b.score - a.score || a.index - b.index)
    .slice(0, 2)
    .map((entry) => entry.doc);
  const docs = matches.length > 0 ? matches : [CORPUS[hash % CORPUS.length]!];
  const openers = [
    "Here is what the Pebble Planner help center says.",
    "Good question, the help center covers this.",
    "Thanks for asking about Pebble Planner.",
  ];
  const closers = [
    "Let me know if you need anything else.",
    "I hope that helps.",
    "Reply here if you have a follow-up question.",
  ];
  const sentences = [
    matches.length > 0
      ? openers[hash % 3]!
      : "I could not find an article that matches exactly, but this one may help.",
  ];
  for (const doc of docs) sentences.push(`According to "${doc.citation.title}": ${doc.citation.snippet}`);
  sentences.push(closers[(hash >>> 8) % 3]!);
  return { text: sentences.join(" "), ids: docs.map((doc) => doc.citation.document_id) };
}

test("the indexed engine answers exactly as scoring every document would, ties in corpus order", () => {
  const keywords = [...new Set(CORPUS.flatMap((doc) => [...doc.keywords]))];
  const message = fc.oneof(
    fc.string({ maxLength: 120 }),
    fc
      .array(fc.constantFrom(...keywords, "the", "and", "Reminders", "zzz", "CSV!"), { maxLength: 12 })
      .map((words) => words.join(" ")),
  );
  fc.assert(
    fc.property(message, fc.nat(1000), (text, seed) => {
      const answer = createAnswerEngine(seed).answer(text);
      const plain = plainAnswerText(seed, text);
      expect(answer.text).toBe(plain.text);
      expect(answer.citations.map((c) => c.document_id)).toEqual(plain.ids);
    }),
    { numRuns: 500 },
  );
});

test("words are the letter and digit runs of the message, whatever separates them", () => {
  const matched = (text: string) => [...text.toLowerCase().matchAll(/[\p{L}\p{N}]+/gu)].map((match) => match[0]);
  fc.assert(
    fc.property(fc.string({ maxLength: 80, unit: "binary" }), (text) => {
      const expected = new Set(
        matched(text)
          .map((word) => (word.length > 3 && word.endsWith("s") && !word.endsWith("ss") ? word.slice(0, -1) : word))
          .filter((word) => word.length >= 3 && !STOP_WORDS.has(word)),
      );
      const actual = normaliseWords(text);
      for (const word of expected) expect(actual.has(word)).toBe(true);
      for (const word of actual)
        expect(matched(text.toLowerCase()).some((run) => run === word || run === `${word}s`)).toBe(true);
    }),
    { numRuns: 300 },
  );
});
