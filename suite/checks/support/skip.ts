/**
 * Ends the running check as skipped, with a reason, when what it judges did not occur in
 * this run (no `error` event was seen; no stream had enough deltas to judge delivery).
 * A skip is reported as such, never as a pass.
 */
import { getCurrentTest } from "vitest/suite";

export function skipCheck(reason: string): never {
  const test = getCurrentTest();
  if (test === undefined) throw new Error(`skipCheck called outside a running check (${reason})`);
  return test.context.skip(reason);
}
