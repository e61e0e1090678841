/**
 * Ends the running check as skipped, with a reason, when what it judges did not occur in
 * this run (no `error` event was seen; the stream had too few deltas to judge delivery).
 * A skip is reported as such, never as a pass.
 */
import { TestRunner } from "vitest";

export function skipCheck(reason: string): never {
  const test = TestRunner.getCurrentTest();
  if (test === undefined) throw new Error(`skipCheck called outside a running check (${reason})`);
  return test.context.skip(reason);
}
