/**
 * The pauses of a request (stage 9): injected and configured delays through the app's timers, cut
 * short when the client leaves and stopped when the app closes. Most requests take none, and pay
 * nothing for it.
 */
import type { ServerResponse } from "node:http";
import { ServerClosingError } from "../http/api-error.ts";
import { clientGoneSignal } from "../http/disconnect.ts";
import type { TimerRegistry } from "./timers.ts";

/** What a pause uses: the app's timers, and the signal of its closing. */
export interface PauseContext {
  readonly timers: TimerRegistry;
  /** Aborted when the app closes: every pause ends at once. */
  readonly shutdown: AbortSignal;
}

/**
 * An injected or configured pause. It ends early when the client has gone (the exchange
 * then completes without further delay) and throws when the server is closing.
 */
export async function pause(ctx: PauseContext, ms: number, clientGone: AbortSignal): Promise<void> {
  await ctx.timers.sleep(ms, [ctx.shutdown, clientGone]);
  if (ctx.shutdown.aborted) throw new ServerClosingError();
}

/**
 * A pause before answering `res`, or undefined when there is none to wait for. Most
 * requests take none: they need no AbortController for the client, and no promise to await.
 */
export function pauseBeforeAnswer(ctx: PauseContext, ms: number, res: ServerResponse): Promise<void> | undefined {
  if (ms > 0) return pause(ctx, ms, clientGoneSignal(res));
  if (ctx.shutdown.aborted) throw new ServerClosingError();
  return undefined;
}
