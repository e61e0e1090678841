/**
 * What fault rules and answer rules share: a session's book of rules, oldest first, each counted
 * down as requests take it and listed until removed, with ids unique across sessions.
 */

/** A rule as the control endpoints show it: its id, how often it still applies, and its own fields. */
export interface RuleState {
  readonly id: string;
  /** How many requests it applies to in all; 0 means until removed. */
  readonly times: number;
  /** How many it still applies to; null when `times` is 0. */
  remaining: number | null;
  /** How many requests it applied to so far: what a test asserts of a rule that never runs out. */
  applied: number;
}

/**
 * The rules of one kind in one session, oldest first. A request takes the oldest matching
 * rule with uses left, which counts down; a used-up rule stays listed (remaining 0) until
 * removed, so a test can assert that it was used.
 */
export class RuleBook<R extends RuleState> {
  private readonly rules: R[] = [];

  constructor(private readonly newId: () => string) {}

  /** Adds a rule made by `make` with a fresh id. */
  add(make: (id: string) => R): R {
    const rule = make(this.newId());
    this.rules.push(rule);
    return rule;
  }

  list(): readonly R[] {
    return this.rules;
  }

  get size(): number {
    return this.rules.length;
  }

  /** Removes one rule; false when no rule has that id. */
  remove(id: string): boolean {
    const index = this.rules.findIndex((rule) => rule.id === id);
    if (index === -1) return false;
    this.rules.splice(index, 1);
    return true;
  }

  clear(): void {
    this.rules.length = 0;
  }

  /** The oldest rule that `matches` and has uses left, counted down; undefined when none. */
  take(matches: (rule: R) => boolean): R | undefined {
    for (const rule of this.rules) {
      if (rule.remaining === 0 || !matches(rule)) continue;
      if (rule.remaining !== null) rule.remaining--;
      rule.applied++;
      return rule;
    }
    return undefined;
  }
}

/** Ids unique across an app's sessions: "fault-1", "answer-2", … */
export function idSequence(prefix: string): () => string {
  let next = 0;
  return () => `${prefix}-${++next}`;
}
