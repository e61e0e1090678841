/**
 * Thresholds of the client-rule observer. The defaults suit a client's test suite: long
 * enough windows to catch automatic retries, small enough memory caps for a long-running fake.
 */
export interface ClientRuleOptions {
  /** A started stream's message re-sent under a new Idempotency-Key within this time after the stream failed or was cut is a likely duplicate (CLIENT-4). */
  duplicateWindowMs: number;
  /** The sliding window in which retries of one Idempotency-Key are counted (CLIENT-7). */
  stormWindowMs: number;
  /** More unpaced retries of one key than this within the window is a retry storm (CLIENT-7). */
  stormMaxRetries: number;
  /** A retry this much earlier than Retry-After allows still counts as waiting (timer rounding). */
  retryAfterSlackMs: number;
  /** Violations kept per API key; the oldest go first (the counts keep counting). */
  maxViolationsPerKey: number;
  /** API keys tracked; the one least recently seen goes first, with its violations and history. */
  maxKeys: number;
  /** Recent create requests remembered per API key, for the rules that compare requests. */
  historyPerKey: number;
  /** Body excerpts are cut to this many characters. */
  bodyExcerptChars: number;
}

export const DEFAULT_CLIENT_RULE_OPTIONS: Readonly<ClientRuleOptions> = Object.freeze({
  duplicateWindowMs: 10_000,
  stormWindowMs: 10_000,
  stormMaxRetries: 5,
  retryAfterSlackMs: 100,
  maxViolationsPerKey: 100,
  maxKeys: 100,
  historyPerKey: 200,
  bodyExcerptChars: 200,
});

const LIMITS: Readonly<Record<keyof ClientRuleOptions, readonly [min: number, max: number]>> = {
  duplicateWindowMs: [0, 24 * 60 * 60 * 1000],
  stormWindowMs: [1, 24 * 60 * 60 * 1000],
  stormMaxRetries: [0, 1_000_000],
  retryAfterSlackMs: [0, 60_000],
  maxViolationsPerKey: [1, 1_000_000],
  maxKeys: [1, 1_000_000],
  historyPerKey: [1, 1_000_000],
  bodyExcerptChars: [16, 100_000],
};

/** A threshold the observer cannot use; the message names it (the fake's options report it as theirs). */
export class ClientRuleOptionsError extends Error {
  override name = "ClientRuleOptionsError";
}

export function resolveClientRuleOptions(given: Partial<ClientRuleOptions> = {}): ClientRuleOptions {
  const resolved = { ...DEFAULT_CLIENT_RULE_OPTIONS };
  for (const name of Object.keys(LIMITS) as (keyof ClientRuleOptions)[]) {
    const value = given[name];
    if (value === undefined) continue;
    const [min, max] = LIMITS[name];
    if (!Number.isInteger(value) || value < min || value > max) {
      throw new ClientRuleOptionsError(`clientRules.${name} must be an integer from ${min} to ${max}, not ${value}`);
    }
    resolved[name] = value;
  }
  return resolved;
}
