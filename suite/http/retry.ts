/**
 * The "try later" answers the spec allows a service to give and the suite must wait out rather
 * than judge: 429 (rate limited), 503 (overloaded), and a 409 that carries Retry-After (the
 * key's first request is still running) where the check did not ask for concurrency. Each is
 * retried with the same Idempotency-Key and body, honouring Retry-After, up to --max-retries.
 */

/** Waits without a Retry-After header: 0.5 s, 1 s, 2 s, … capped. */
const BACKOFF_START_MS = 500;
const BACKOFF_CAP_MS = 8_000;
/** A Retry-After beyond this is not waited out: the run would stall for it. */
const LONGEST_WAIT_MS = 60_000;

/** Whether an answer says "try later" rather than judging the request. */
export function isTryLater(status: number, headers: Record<string, string>, retryInUse: boolean): boolean {
  if (status === 429 || status === 503) return true;
  return status === 409 && retryInUse && headers["retry-after"] !== undefined;
}

/** Retry-After as milliseconds: delta-seconds or an HTTP date; undefined when absent or unreadable. */
export function retryAfterMs(value: string | undefined, now: number = Date.now()): number | undefined {
  if (value === undefined) return undefined;
  const text = value.trim();
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  // An HTTP date names its day and month ("Sun, 06 Nov 1994 08:49:37 GMT"); bare numbers are not dates.
  if (!/[A-Za-z]/.test(text)) return undefined;
  const date = Date.parse(text);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/** How long to wait before retry number `attempt` (0-based). */
export function waitBeforeRetry(attempt: number, header: string | undefined): number {
  const asked = retryAfterMs(header);
  const wait = asked ?? Math.min(BACKOFF_CAP_MS, BACKOFF_START_MS * 2 ** attempt);
  return Math.min(wait, LONGEST_WAIT_MS);
}

/** Resolves after `ms`, or rejects with the signal's reason when it aborts first. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

/** Paces every request of a run to at most `perSecond` (--max-rps); none when undefined. */
export class Pacer {
  readonly #intervalMs: number;
  #next = 0;

  constructor(perSecond: number | undefined) {
    this.#intervalMs = perSecond === undefined ? 0 : 1000 / perSecond;
  }

  /** Waits for this request's turn. */
  async turn(signal?: AbortSignal): Promise<void> {
    if (this.#intervalMs === 0) return;
    const now = performance.now();
    const at = Math.max(now, this.#next);
    this.#next = at + this.#intervalMs;
    if (at > now) await sleep(at - now, signal);
  }
}
