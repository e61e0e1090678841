/** For the tests of the judgements: the failure a call throws, so its data can be inspected. */
import { ExpectationError } from "../judgements/expect.ts";

export function failureOf(run: () => unknown): ExpectationError {
  try {
    run();
  } catch (error) {
    if (error instanceof ExpectationError) return error;
    throw error;
  }
  throw new Error("expected an ExpectationError, but nothing was thrown");
}
