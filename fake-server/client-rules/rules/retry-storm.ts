/**
 * Client rule CLIENT-7: retries under one Idempotency-Key wait as the answers ask (their
 * Retry-After); a burst of unpaced retries is one storm, recorded once.
 */
import { holdsOtherThan, type ObservedRequest } from "../observed-request.ts";
import type { ClientRule } from "../rule.ts";

/** How many requests a storm entry lists: the first attempt and the latest retries. */
const SHOWN = 8;

/**
 * Whether attempt `index` waited as the answers before it asked: the Retry-After of the
 * latest answer it could have seen has elapsed, and no attempt sent after that answer is
 * still running. An answer without Retry-After gives no pace, so a retry after it counts as
 * unpaced. Attempts are in arrival order; their millisecond timestamps may be equal, and an
 * attempt that runs on from before the latest answer (the one a 409 in_use points at) does
 * not count against the retry.
 */
function paced(index: number, attempts: readonly ObservedRequest[], slackMs: number): boolean {
  const retry = attempts[index];
  if (retry === undefined) return false;
  const before = attempts.slice(0, index);
  let latest = -1;
  before.forEach((attempt, i) => {
    const finishedAt = attempt.finishedAt;
    if (finishedAt === undefined || finishedAt > retry.at) return;
    if (latest === -1 || finishedAt >= (before[latest]?.finishedAt ?? 0)) latest = i;
  });
  const answer = before[latest];
  const since = answer?.finishedAt ?? Number.NEGATIVE_INFINITY;
  const sentSince = (attempt: ObservedRequest, i: number) => attempt.at > since || (attempt.at === since && i > latest);
  const running = (attempt: ObservedRequest) => attempt.finishedAt === undefined || attempt.finishedAt > retry.at;
  if (before.some((attempt, i) => running(attempt) && sentSince(attempt, i))) return false;
  if (answer?.finishedAt === undefined || answer.retryAfterMs === undefined) return false;
  return retry.at >= answer.finishedAt + answer.retryAfterMs - slackMs;
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
    judge({ request, sameOperationKey, options }) {
      if (request.operation === undefined || request.idempotencyKey === undefined) return undefined;
      // A first attempt (the usual case) is judged without building anything.
      if (!holdsOtherThan(sameOperationKey, request)) return undefined;
      const attempts = [...sameOperationKey.filter((other) => other !== request), request];
      const [first] = attempts;
      if (first === undefined) return undefined;
      const windowStart = request.at - options.stormWindowMs;
      const recent = attempts.flatMap((retry, index) =>
        index > 0 && retry.at > windowStart ? [{ retry, index }] : [],
      );
      if (recent.some(({ retry }) => stormsRecorded.has(retry))) return undefined;
      const unpaced = recent
        .filter(({ index }) => !paced(index, attempts, options.retryAfterSlackMs))
        .map(({ retry }) => retry);
      if (unpaced.length <= options.stormMaxRetries) return undefined;
      stormsRecorded.add(request);
      return {
        message:
          `this Idempotency-Key was retried ${unpaced.length} times within ${options.stormWindowMs} ms without waiting for ` +
          "Retry-After (with no answer yet to an attempt still running, before Retry-After elapsed, or after an answer that gave none); " +
          "wait for Retry-After, back off between retries and cap their number",
        requests: [first, ...unpaced.slice(-(SHOWN - 1))],
      };
    },
  };
}
