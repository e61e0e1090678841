/**
 * Client rule CLIENT-2, judged as a create arrives (plain or streamed): an Idempotency-Key that is
 * not blank.
 */
import type { ClientRule } from "../rule.ts";

/** CLIENT-2: every create, plain or streamed, carries a non-blank Idempotency-Key. */
export const idempotencyKeyPresent: ClientRule = {
  requirement: "CLIENT-2",
  title: "create without an Idempotency-Key",
  stage: "arrival",
  judge({ request }) {
    if (request.operation === undefined) return undefined;
    const key = request.idempotencyKey;
    // \S is what trim() keeps: a key with any such character is not blank.
    if (key !== undefined && /\S/.test(key)) return undefined;
    const what = key === undefined ? "has no Idempotency-Key header" : "has a blank Idempotency-Key";
    return {
      message: `the ${request.operation} request ${what}; send a new unique key (e.g. a UUID) per logical operation and reuse it only to retry that operation`,
      requests: [request],
    };
  },
};
