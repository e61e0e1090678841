/**
 * Client rule CLIENT-3, judged once a create's body is read: one Idempotency-Key per logical
 * operation, so a key that holds one payload is not sent with another.
 */
import { heldItsKey, type ObservedRequest } from "../observed-request.ts";
import type { ClientRule } from "../rule.ts";

/** The latest other request under the same key that held it with a different payload. */
function holderOf(
  request: ObservedRequest,
  sameOperationKey: readonly ObservedRequest[],
  fingerprint: string,
): ObservedRequest | undefined {
  for (let i = sameOperationKey.length - 1; i >= 0; i--) {
    const other = sameOperationKey[i];
    if (other === undefined || other === request || other.payload === undefined) continue;
    if (other.payload.fingerprint !== fingerprint && heldItsKey(other)) return other;
  }
  return undefined;
}

/**
 * CLIENT-3: a new Idempotency-Key for each logical operation. A key that already holds one
 * payload (answered 2xx, or still running) sent with another payload is a second operation
 * under the first one's key. Earlier attempts that were refused (validation, 429, 404) never
 * held the key, so fixing a body and retrying under the same key is not counted.
 */
export const idempotencyKeyReuse: ClientRule = {
  requirement: "CLIENT-3",
  title: "Idempotency-Key reused with a different payload",
  stage: "payload",
  judge({ request, sameOperationKey }) {
    const payload = request.payload;
    if (payload === undefined || request.idempotencyKey === undefined) return undefined;
    const holder = holderOf(request, sameOperationKey, payload.fingerprint);
    if (holder === undefined) return undefined;
    return {
      message:
        "this Idempotency-Key was already used for a request with a different body (the service answers 409); " +
        "use a new key for each logical operation and reuse a key only to retry the same request",
      requests: [holder, request],
    };
  },
};
