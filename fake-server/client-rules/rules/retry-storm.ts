import { sameKey, type ObservedRequest } from "../observed-request.ts";
import type { ClientRule } from "../rule.ts";

/** How many requests a storm entry lists: the first attempt and the latest retries. */
const SHOWN = 8;

/**
 * Whether attempt `index` waited as the answers before it asked: nothing of the key still
 * running when it came, and the Retry-After of the latest finished answer elapsed. An answer
 * without Retry-After gives no pace, so a retry after it counts as unpaced. Attempts are in
 * arrival order; their millisecond timestamps may be equal.
 */
function paced(index: number, attempts: readonly ObservedRequest[], slackMs: number): boolean {
  const retry = attempts[index];
  if (retry === undefined) return false;
  let latest: ObservedRequest | undefined;
  for (const before of attempts.slice(0, index)) {
    if (before.finishedAt === undefined || before.finishedAt > retry.at) return false;
    if (latest?.finishedAt === undefined || before.finishedAt >= latest.finishedAt) latest = before;
  }
  if (latest?.finishedAt === undefined || latest.retryAfterMs === undefined) return false;
  return retry.at >= latest.finishedAt + latest.retryAfterMs - slackMs;
}

/**
 * CLIENT-7: retries of one Idempotency-Key are paced. More than `stormMaxRetries` unpaced
 * retries within `stormWindowMs` is one storm; it is recorded once, on the retry that
 * crosses the threshold, and not again for that key while the window still holds it.
 */
export function createRetryStorm(): ClientRule {
  const stormsRecorded = new WeakSet<ObservedRequest>();
  return {
    requirement: "CLIENT-7",
    title: "retry storm: one Idempotency-Key retried too often without waiting for Retry-After",
    stage: "arrival",
    judge({ request, earlier, options }) {
      if (request.operation === undefined || request.idempotencyKey === undefined) return undefined;
      const attempts = [...earlier.filter((other) => sameKey(other, request)), request];
      const [first] = attempts;
      if (first === undefined || attempts.length < 2) return undefined;
      const windowStart = request.at - options.stormWindowMs;
      const recent = attempts.flatMap((retry, index) => (index > 0 && retry.at > windowStart ? [{ retry, index }] : []));
      if (recent.some(({ retry }) => stormsRecorded.has(retry))) return undefined;
      const unpaced = recent
        .filter(({ index }) => !paced(index, attempts, options.retryAfterSlackMs))
        .map(({ retry }) => retry);
      if (unpaced.length <= options.stormMaxRetries) return undefined;
      stormsRecorded.add(request);
      return {
        message:
          `this Idempotency-Key was retried ${unpaced.length} times within ${options.stormWindowMs} ms without waiting for ` +
          "Retry-After (while an attempt still ran, before Retry-After elapsed, or after an answer that gave none); " +
          "wait for Retry-After, back off between retries and cap their number",
        requests: [first, ...unpaced.slice(-(SHOWN - 1))],
      };
    },
  };
}
