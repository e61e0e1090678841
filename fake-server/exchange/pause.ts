import type { AppContext } from "../context.ts";

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
