import type { RequirementId } from "../../requirements/catalog.ts";

/** What the model found wrong: the requirement, in words, and the operations that show it. */
export interface Violation {
  readonly requirement: RequirementId;
  readonly message: string;
  /** The operations involved (#n of the history), the one that could not be explained last. */
  readonly ops: readonly number[];
  /** What the model expected instead, in words, when that is not already the message. */
  readonly expected?: string;
  /** The operation (#n) whose exchange a listing lacks, when its items showed which one. */
  readonly lost?: number;
  /** Set when only the order of the items contradicts this world's order of the exchanges. */
  readonly byOrder?: true;
}

export const violation = (requirement: RequirementId, message: string, ops: readonly number[], expected?: string): Violation =>
  expected === undefined ? { requirement, message, ops } : { requirement, message, ops, expected };
