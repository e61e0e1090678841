/** What the model found wrong: the requirement, in words, and the operations that show it. */
export interface Violation {
  readonly requirement: string;
  readonly message: string;
  /** The operations involved (#n of the history), the one that could not be explained last. */
  readonly ops: readonly number[];
  /** What the model expected instead, in words, when that is not already the message. */
  readonly expected?: string;
}

export const violation = (requirement: string, message: string, ops: readonly number[], expected?: string): Violation =>
  expected === undefined ? { requirement, message, ops } : { requirement, message, ops, expected };
