import type { Citation } from "../../schemas/index.ts";
import { CORPUS, normaliseWords, type CorpusDocument } from "./corpus.ts";
import { seededHash } from "./hash.ts";

/** What the agent answers: the text and the citations of the documents it used. */
export interface Answer {
  readonly text: string;
  /** Shared, frozen arrays of frozen corpus citations: never copy them per message. */
  readonly citations: readonly Citation[];
}

export interface AnswerEngine {
  answer(message: string): Answer;
}

const MAX_CITED = 2;

const OPENERS = [
  "Here is what the Pebble Planner help center says.",
  "Good question, the help center covers this.",
  "Thanks for asking about Pebble Planner.",
] as const;
const NO_MATCH_OPENER = "I could not find an article that matches exactly, but this one may help.";
const CLOSERS = [
  "Let me know if you need anything else.",
  "I hope that helps.",
  "Reply here if you have a follow-up question.",
] as const;

function pick<T>(items: readonly [T, ...T[]], hash: number): T {
  return items[hash % items.length] ?? items[0];
}

/** The documents sharing the most words with the message, best first (ties: corpus order). */
function bestMatches(message: string): CorpusDocument[] {
  const words = normaliseWords(message);
  const scored: { doc: CorpusDocument; score: number; index: number }[] = [];
  CORPUS.forEach((doc, index) => {
    let score = 0;
    for (const word of words) if (doc.keywords.has(word)) score++;
    if (score > 0) scored.push({ doc, score, index });
  });
  scored.sort((a, b) => b.score - a.score || a.index - b.index);
  return scored.slice(0, MAX_CITED).map((entry) => entry.doc);
}

// One frozen citations array per set of documents, so a million messages share a handful.
const citationSets = new Map<string, readonly Citation[]>();
function citationsOf(docs: readonly CorpusDocument[]): readonly Citation[] {
  const key = docs.map((doc) => doc.citation.document_id).join("\u0000");
  let citations = citationSets.get(key);
  if (!citations) {
    citations = Object.freeze(docs.map((doc) => doc.citation));
    citationSets.set(key, citations);
  }
  return citations;
}

function lowerFirst(sentence: string): string {
  return sentence.charAt(0).toLowerCase() + sentence.slice(1);
}

/**
 * The fake's agent: a pure function of (seed, message). It cites the corpus documents whose
 * words overlap the message best, or one seeded choice when none overlaps, and writes a few
 * sentences that mention each cited document by title.
 */
export function createAnswerEngine(seed: number): AnswerEngine {
  return {
    answer(message: string): Answer {
      const hash = seededHash(seed, message);
      const matches = bestMatches(message);
      const fallback = CORPUS[hash % CORPUS.length];
      const docs = matches.length > 0 || !fallback ? matches : [fallback];
      const sentences = [matches.length > 0 ? pick(OPENERS, hash) : NO_MATCH_OPENER];
      for (const doc of docs) {
        sentences.push(`According to "${doc.citation.title}", ${lowerFirst(doc.citation.snippet)}`);
      }
      sentences.push(pick(CLOSERS, hash >>> 8));
      return { text: sentences.join(" "), citations: citationsOf(docs) };
    },
  };
}
