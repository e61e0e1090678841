/**
 * Eventual consistency: a deployed service may persist an exchange a moment after answering
 * it. A listing-based judgement first waits for the listing to show what it must (polling with
 * back-off up to --settle-ms); a judgement that nothing changed re-reads after a quiet window
 * long enough for the lag this run has seen. Extra reads and waiting are noted on the running
 * check, so the report shows them and LIST-11 (read-your-writes) can be judged.
 */

import { checkScopes } from "./check-scope.ts";
import { InconclusiveError } from "../../http/errors.ts";
import { sleep } from "../../http/retry.ts";

/** Polls: 50 ms, 100 ms, 200 ms, … at most 1 s apart. */
const FIRST_POLL_MS = 50;
const LONGEST_POLL_MS = 1_000;
/** The quiet window is never shorter than this, even when no lag was seen. */
const SHORTEST_QUIET_MS = 200;

const LAG_KEY = Symbol.for("agent-conformance.longest-lag");
const lag = ((globalThis as Record<symbol, unknown>)[LAG_KEY] ??= { longestMs: 0 }) as { longestMs: number };

export interface Settled<T> {
  value: T;
  /** Whether `ready` held; false when the window ran out first (the caller judges the last value). */
  ready: boolean;
  /** Reads beyond the first. */
  extraReads: number;
  waitedMs: number;
}

function signal(): AbortSignal | undefined {
  return checkScopes.getStore()?.controller.signal;
}

async function pause(ms: number): Promise<void> {
  try {
    await sleep(ms, signal());
  } catch {
    throw new InconclusiveError(
      "timeout",
      "the check's time ran out while it waited for the listing to settle",
      "--check-timeout",
    );
  }
}

/** Reads until `ready` holds or `settleMs` has passed; the last read is returned either way. */
export async function settle<T>(
  read: () => Promise<T>,
  ready: (value: T) => boolean,
  settleMs: number,
): Promise<Settled<T>> {
  const started = performance.now();
  let value = await read();
  let extraReads = 0;
  let wait = FIRST_POLL_MS;
  while (!ready(value)) {
    const left = settleMs - (performance.now() - started);
    if (left <= 0) return { value, ready: false, extraReads, waitedMs: performance.now() - started };
    await pause(Math.min(wait, left));
    wait = Math.min(wait * 2, LONGEST_POLL_MS);
    value = await read();
    extraReads++;
  }
  const waitedMs = extraReads === 0 ? 0 : performance.now() - started;
  if (extraReads > 0) {
    lag.longestMs = Math.max(lag.longestMs, waitedMs);
    checkScopes.getStore()?.noteSettle(extraReads, waitedMs);
  }
  return { value, ready: true, extraReads, waitedMs };
}

/**
 * Waits long enough that a change the target is still persisting would show: twice the longest
 * lag this run has seen, at least 200 ms, at most --settle-ms.
 */
export async function quietWindow(settleMs: number): Promise<void> {
  await pause(Math.min(settleMs, Math.max(SHORTEST_QUIET_MS, 2 * lag.longestMs)));
}
