/**
 * SIGINT and SIGTERM during a run (Ctrl-C, a CI timeout or cancel, `docker stop`). The first
 * asks for a clean stop: no new request, in-flight ones end within a short bound, cleanup,
 * reports with result "incomplete", exit 130 or 143. A second one stops at once: nothing is
 * waited for, and the reports say which conversations were left on the target.
 *
 * The checks run in vitest's worker, a thread of the runner's process, where process.on does
 * not see signals: the runner tells it through a file (the worker reads it a few times a
 * second, checks/runtime/stop-request.ts).
 */

import { writeFileSync } from "node:fs";
import { watchLauncher } from "../traffic/proxy/launcher-watch.ts";

export type StopSignal = "SIGINT" | "SIGTERM";

/** The exit code of a run a signal stopped: 128 + the signal's number, as shells report it. */
export const SIGNAL_EXIT_CODES = { SIGINT: 130, SIGTERM: 143 } as const;

/**
 * Ctrl-C under npm arrives twice: once to the whole group, once forwarded by npm. The same signal
 * again within this long is that copy, not a second request.
 */
const SAME_SIGNAL_MS = 1_000;

/** What the worker reads from the stop file. */
export interface StopFile {
  signal: StopSignal;
  atOnce: boolean;
}

/** A run's view of the signals it was sent. */
export interface Interruption {
  /** The first signal, once one came. */
  readonly signal: StopSignal | undefined;
  /** True once a second signal asked to stop at once (or the runner gave up waiting). */
  readonly atOnce: boolean;
  /** Settles on the first signal. */
  readonly stopped: Promise<StopSignal>;
  /** Settles when the run must stop at once. */
  readonly now: Promise<void>;
  /** Stop at once, as a second signal would (the runner's own bound on waiting). */
  escalate(): void;
  /** Where the worker reads what was asked: written now if a signal already came, and on each change. */
  tellWorker(path: string): void;
  /** Removes the signal handlers; after a signal, later ones are absorbed until the process exits. */
  dispose(): void;
}

/** Listens for SIGINT and SIGTERM (and, under npm or npx, for the launcher's end, as SIGTERM). */
export function listenForStop(onSignal: (signal: StopSignal, atOnce: boolean) => void = () => {}): Interruption {
  let signal: StopSignal | undefined;
  let atOnce = false;
  let firstAt = 0;
  let stopPath: string | undefined;
  let resolveStopped: (signal: StopSignal) => void = () => {};
  let resolveNow: () => void = () => {};
  const stopped = new Promise<StopSignal>((resolve) => (resolveStopped = resolve));
  const now = new Promise<void>((resolve) => (resolveNow = resolve));

  const write = () => {
    if (stopPath === undefined || signal === undefined) return;
    try {
      writeFileSync(stopPath, JSON.stringify({ signal, atOnce } satisfies StopFile));
    } catch {
      // The journal's folder is gone: the run is past its checks.
    }
  };
  const goNow = () => {
    if (atOnce) return;
    atOnce = true;
    write();
    resolveNow();
  };
  const receive = (received: StopSignal) => {
    if (signal === undefined) {
      signal = received;
      firstAt = performance.now();
      write();
      onSignal(received, false);
      resolveStopped(received);
      return;
    }
    if (atOnce || (received === signal && performance.now() - firstAt < SAME_SIGNAL_MS)) return;
    goNow();
    onSignal(received, true);
  };
  const absorb = () => {};
  const onInt = () => receive("SIGINT");
  const onTerm = () => receive("SIGTERM");
  process.on("SIGINT", onInt);
  process.on("SIGTERM", onTerm);
  // A launcher that died of the same Ctrl-C is no second signal: only a launcher gone unasked stops the run.
  const unwatch = watchLauncher(() => {
    if (signal === undefined) receive("SIGTERM");
  });

  return {
    get signal() {
      return signal;
    },
    get atOnce() {
      return atOnce;
    },
    stopped,
    now,
    escalate: goNow,
    tellWorker(path: string) {
      stopPath = path;
      write();
    },
    dispose() {
      process.off("SIGINT", onInt);
      process.off("SIGTERM", onTerm);
      unwatch();
      // A process stopping on a signal absorbs late copies of it until it exits: under npm the
      // launcher forwards the same Ctrl-C, and a copy that came once the handlers were gone ended
      // the judge by the signal instead of its exit code 130 (npm then died of SIGINT too).
      if (signal !== undefined) {
        process.on("SIGINT", absorb);
        process.on("SIGTERM", absorb);
      }
    },
  };
}
