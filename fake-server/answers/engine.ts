/**
 * The fake's answer engine: a pure function of (seed, message) that cites the help-center articles
 * matching the message best, so the same question gets the same text and citations every time, on
 * both creates.
 */
import type { Citation } from "../../schemas/index.ts";
import { CORPUS, normaliseWords } from "./corpus.ts";
import { seededHash } from "./hash.ts";

/** What the agent answers: the text and the citations of the documents it used. */
export interface Answer {
  readonly text: string;
  /** Shared, frozen arrays of frozen corpus citations: never copy them per message. */
  readonly citations: readonly Citation[];
  /** How a stream sends the text, when an answer rule says so; otherwise the fake splits it (split.ts). */
  readonly deltas?: readonly string[];
}

export interface AnswerEngine {
  answer(message: string): Answer;
}

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

// Everything about the corpus an answer needs is built once, at load.
const DOC_COUNT = CORPUS.length;
/** For each keyword, the indexes of the documents that list it, in corpus order. */
const DOCS_BY_WORD: ReadonlyMap<string, readonly number[]> = (() => {
  const index = new Map<string, number[]>();
  CORPUS.forEach((doc, i) => {
    for (const word of doc.keywords) {
      const docs = index.get(word);
      if (docs) docs.push(i);
      else index.set(word, [i]);
    }
  });
  return index;
})();
const SENTENCES: readonly string[] = CORPUS.map(
  (doc) => `According to "${doc.citation.title}": ${doc.citation.snippet}`,
);
/** Scratch scores for one call of `bestMatches` (synchronous, so one array serves every call); all zero between calls. */
const scores = new Int32Array(DOC_COUNT);

/** The indexes of the (at most two) documents sharing the most words with the message, best first (ties: corpus order). */
function bestMatches(message: string): number[] {
  for (const word of normaliseWords(message)) {
    const docs = DOCS_BY_WORD.get(word);
    if (docs) for (const i of docs) scores[i] = (scores[i] ?? 0) + 1;
  }
  let first = -1;
  let second = -1;
  for (let i = 0; i < DOC_COUNT; i++) {
    const score = scores[i] ?? 0;
    if (score === 0) continue;
    if (first === -1 || score > (scores[first] ?? 0)) {
      second = first;
      first = i;
    } else if (second === -1 || score > (scores[second] ?? 0)) {
      second = i;
    }
  }
  scores.fill(0);
  return first === -1 ? [] : second === -1 ? [first] : [first, second];
}

/**
 * One frozen answer per (opener, documents, closer): a handful of combinations, so the
 * cache stays small, and a million messages share a few texts and citation arrays.
 */
const answers = new Map<number, Answer>();
function answerOf(opener: number, docs: readonly number[], closer: number): Answer {
  const [a = -1, b = -1] = docs;
  const key = ((opener * CLOSERS.length + closer) * (DOC_COUNT + 1) + (a + 1)) * (DOC_COUNT + 1) + (b + 1);
  let answer = answers.get(key);
  if (!answer) {
    const sentences = [
      OPENERS[opener] ?? NO_MATCH_OPENER,
      ...docs.map((i) => SENTENCES[i] ?? ""),
      CLOSERS[closer] ?? "",
    ];
    const citations = Object.freeze(docs.flatMap((i) => CORPUS[i]?.citation ?? []));
    answer = Object.freeze({ text: sentences.join(" "), citations });
    answers.set(key, answer);
  }
  return answer;
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
      const docs = matches.length > 0 || DOC_COUNT === 0 ? matches : [hash % DOC_COUNT];
      // Opener index OPENERS.length stands for NO_MATCH_OPENER.
      const opener = matches.length > 0 ? hash % OPENERS.length : OPENERS.length;
      return answerOf(opener, docs, (hash >>> 8) % CLOSERS.length);
    },
  };
}
