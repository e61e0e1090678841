import { sameKey, type ObservedRequest } from "../observed-request.ts";
import type { ClientRule } from "../rule.ts";

/** How many requests a storm entry lists: the first attempt and the latest retries. */
const SHOWN = 8;

/**
 * Whether a retry arriving at `at` waited as the answers before it asked: nothing of the
 * key still running, and the Retry-After of the latest finished answer elapsed. An answer
 * without Retry-After gives no pace, so a retry after it counts as unpaced.
 */
function paced(at: number, attempts: readonly ObservedRequest[], slackMs: number): boolean {
  const before = attempts.filter((a) => a.at < at);
  if (before.some((a) => a.finishedAt === undefined || a.finishedAt > at)) return false;
  const latest = before.reduce<ObservedRequest | undefined>(
    (last, a) => (last === undefined || (a.finishedAt ?? 0) >= (last.finishedAt ?? 0) ? a : last),
    undefined,
  );
  if (latest?.finishedAt === undefined || latest.retryAfterMs === undefined) return false;
  return at >= latest.finishedAt + latest.retryAfterMs - slackMs;
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
      const [first, ...retries] = attempts;
      if (first === undefined || retries.length === 0) return undefined;
      const windowStart = request.at - options.stormWindowMs;
      const recent = retries.filter((retry) => retry.at > windowStart);
      if (recent.some((retry) => stormsRecorded.has(retry))) return undefined;
      const unpaced = recent.filter((retry) => !paced(retry.at, attempts, options.retryAfterSlackMs));
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
