/**
 * The worker's side of an interrupted run (runner/interruption.ts). Once the runner asks to
 * stop (the stop file), no request is started any more, checks not begun are skipped, and requests in
 * flight get a short bound to end (their conversations are then tracked and cleaned up), after
 * which they are aborted; at once when the runner says so.
 */

import { existsSync, readFileSync } from "node:fs";
import { Pacer } from "../../http/retry.ts";

/** How long requests in flight may take to end after the first signal. */
export const IN_FLIGHT_BOUND_MS = 3_000;
/** How often the stop file is looked at. */
const POLL_MS = 100;

/** Thrown instead of sending a request once the run is stopping. */
export class RunInterrupted extends Error {
  override readonly name = "RunInterrupted";
}

export class StopRequest {
  #reason: string | undefined;
  #atOnce = false;
  readonly #aborter = new AbortController();
  #bound: NodeJS.Timeout | undefined;

  /** "interrupted by SIGINT", once the run is stopping. */
  get reason(): string | undefined {
    return this.#reason;
  }

  /** Aborted when the requests in flight have had their time (or at once). */
  get signal(): AbortSignal {
    return this.#aborter.signal;
  }

  stop(signal: string, atOnce: boolean): void {
    if (this.#reason === undefined) {
      this.#reason = `interrupted by ${signal}`;
      this.#bound = setTimeout(() => this.#aborter.abort(new RunInterrupted(this.#reason)), IN_FLIGHT_BOUND_MS);
      this.#bound.unref();
    }
    if (atOnce && !this.#atOnce) {
      this.#atOnce = true;
      clearTimeout(this.#bound);
      this.#aborter.abort(new RunInterrupted(this.#reason));
    }
  }

  /** Throws RunInterrupted once the run is stopping: no request starts after that. */
  refuse(): void {
    if (this.#reason !== undefined) throw new RunInterrupted(`${this.#reason}: no further request is sent`);
  }
}

/**
 * The worker's stop request, from the runner's stop file. The worker is a thread of the runner's
 * process (vitest-run.ts), and signals reach only the runner, which writes the file.
 */
export function watchStopRequest(stopPath: string | undefined): StopRequest {
  const request = new StopRequest();
  if (stopPath !== undefined) {
    const timer = setInterval(() => {
      if (!existsSync(stopPath)) return;
      try {
        const asked = JSON.parse(readFileSync(stopPath, "utf8")) as { signal?: unknown; atOnce?: unknown };
        if (typeof asked.signal === "string") request.stop(asked.signal, asked.atOnce === true);
      } catch {
        // Read while being written: the next look sees it whole.
      }
    }, POLL_MS);
    timer.unref();
  }
  return request;
}

/** The run's pacing (--max-rps) with the stop in front of it: every attempt of every request passes here. */
export class StoppablePacer extends Pacer {
  readonly #stop: StopRequest;

  constructor(perSecond: number | undefined, stop: StopRequest) {
    super(perSecond);
    this.#stop = stop;
  }

  override async turn(signal?: AbortSignal): Promise<void> {
    this.#stop.refuse();
    await super.turn(signal);
    this.#stop.refuse();
  }
}
