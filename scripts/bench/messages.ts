/**
 * The messages the throughput section sends, the same sequence to the fake and to the bare
 * handler. They are many and distinct: questions on every topic of the fake's corpus, each
 * with its own ticket number, so that no per-message shortcut in a target (a cache of
 * answers, say) can stand in for the work of answering and storing a new message.
 */

const QUESTIONS = [
  "How do I get started with Pebble Planner?",
  "Why are my devices not syncing?",
  "Can I keep working offline on a plane?",
  "Which plan includes team billing?",
  "How do I cancel my subscription?",
  "I forgot my password, how do I reset it?",
  "How do I turn on two-factor authentication?",
  "Can I share a project with a colleague?",
  "Why did I not get a reminder notification?",
  "How do I export my calendar?",
  "Does it integrate with my work calendar?",
  "How do I delete my account and my data?",
  "What does the weather look like tomorrow?",
] as const;

/** Distinct messages, far more than any bounded per-message memory would hold. */
export const MESSAGE_COUNT = 16_384;

export function benchMessage(index: number): string {
  const cycle = index % MESSAGE_COUNT;
  const question = QUESTIONS[cycle % QUESTIONS.length] as string;
  return `${question} (ticket ${100_000 + cycle})`;
}

/** The request body of the `index`-th create. */
export function benchBody(index: number): string {
  return JSON.stringify({ message: benchMessage(index) });
}
