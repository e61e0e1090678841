import type { ServerResponse } from "node:http";
import type { AppContext } from "../context.ts";
import { clientGoneSignal } from "../http/disconnect.ts";

/** The app is closing: the running exchange stops where it is. */
export class ServerClosingError extends Error {
  constructor() {
    super("the fake server is closing");
    this.name = "ServerClosingError";
  }
}

/**
 * An injected or configured pause. It ends early when the client has gone (the exchange
 * then completes without further delay) and throws when the server is closing.
 */
export async function pause(ctx: AppContext, ms: number, clientGone: AbortSignal): Promise<void> {
  await ctx.timers.sleep(ms, [ctx.shutdown, clientGone]);
  if (ctx.shutdown.aborted) throw new ServerClosingError();
}

/**
 * A pause before answering `res`, or undefined when there is none to wait for. Most
 * requests take none: they need no AbortController for the client, and no promise to await.
 */
export function pauseBeforeAnswer(ctx: AppContext, ms: number, res: ServerResponse): Promise<void> | undefined {
  if (ms > 0) return pause(ctx, ms, clientGoneSignal(res));
  if (ctx.shutdown.aborted) throw new ServerClosingError();
  return undefined;
}
