import fc from "fast-check";
import { expect, test } from "vitest";
import { Citation } from "../../schemas/index.ts";
import { CORPUS } from "./corpus.ts";
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
