/**
 * A fast-check property run inside a check, failing readably: the failed expectation and the
 * exchange that showed it (the smallest failing case's, not whatever ran last while shrinking),
 * with the case, the seed and the path that reproduce it, instead of fast-check's bare
 * "Counterexample: [1,101]". A target that never let the property finish stays inconclusive.
 */
import fc from "fast-check";
import { checkScopes } from "../runtime/check-scope.ts";
import { inconclusiveCause } from "../../http/errors.ts";
import { ExpectationError } from "../../judgements/expect.ts";

export async function checkProperty<Ts extends [unknown, ...unknown[]]>(
  property: fc.IAsyncPropertyWithHooks<Ts>,
  parameters: fc.Parameters<Ts>,
): Promise<void> {
  const details = await fc.check(property, parameters);
  if (!details.failed) return;
  const error = details.errorInstance;
  const inconclusive = inconclusiveCause(error);
  if (inconclusive !== undefined) throw inconclusive;
  if (!(error instanceof ExpectationError)) throw error instanceof Error ? error : new Error(String(error));
  const found = `the smallest failing case ${fc.stringify(details.counterexample)} (seed ${details.seed}, path ${details.counterexamplePath ?? "?"}; ${details.numRuns} run(s), ${details.numShrinks} shrink(s))`;
  // The exchanges of that case are the evidence, not those of the last attempt while shrinking.
  checkScopes.getStore()?.pin(error.transcripts);
  throw new ExpectationError(`${found}: ${error.message}`);
}
