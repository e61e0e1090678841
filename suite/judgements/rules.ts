/**
 * The shape of the rule tables (stream-rules.ts, answer-rules.ts): one rule per requirement,
 * which answers can show it, and its judgement.
 */
import type { RequirementId } from "../../requirements/catalog.ts";

export interface Rule<A> {
  readonly id: RequirementId;
  /** Whether this 2xx answer can show the rule at all. */
  readonly when: (a: A) => boolean;
  /** Throws the rule's ExpectationError; `context` names the answer in the message. */
  readonly judge: (a: A, context: string) => void;
}

/** The rule of one requirement in a table (each has one per id). */
export function ruleOf<R extends { readonly id: RequirementId }>(rules: readonly R[], id: RequirementId): R {
  const rule = rules.find((r) => r.id === id);
  if (rule === undefined) throw new Error(`no rule for ${id} in this table`);
  return rule;
}
