/**
 * Playing a stream (stage 10): created, the deltas and the terminal event of a fresh exchange or a
 * replay, each written as it is produced with the pauses between. A client that leaves does not
 * stop the script, so the exchange is stored as if it had been watched.
 */
import type { ServerResponse } from "node:http";
import { EVENT, type CompletedResponse, type StreamEvent } from "../../schemas/index.ts";
import type { AppContext } from "../context.ts";
import { clientGoneSignal, dropConnection } from "../http/disconnect.ts";
import { endEventStream, writeEvent } from "../http/sse.ts";
import { pause } from "../pause/pause.ts";

/** What one stream plays, whether it is a fresh exchange or a replay of a stored one. */
export interface StreamScript {
  readonly conversationId: string;
  readonly deltas: readonly string[];
  /** End with an `error` event once this many deltas are out (at most all of them). */
  readonly errorAfter: number | undefined;
  /** Destroy the connection once this many deltas are out (at most all of them). */
  readonly dropAfter: number | undefined;
  /** Reached the end: take effect and give the completed response. */
  complete(): CompletedResponse;
  /** Reached the error point after `deltasSent` deltas: take effect and give the error. */
  fail(deltasSent: number): { code: string; message: string };
}

export interface StreamDelays {
  readonly firstEventMs: number;
  /** A pause right after response.created: the agent still thinking (0 in the conforming fake). */
  readonly afterCreatedMs: number;
  /** The pause before each delta and before the terminal event. */
  readonly betweenMs: number;
}

/**
 * Plays a script on a started event stream: created, the deltas, then completed or error,
 * each written when produced. If the client goes away (or the connection is dropped on
 * purpose) the script still runs to its end without further pauses, so the exchange is
 * stored exactly as if it had been watched. Resolves to the terminal event the script reached.
 */
export async function playStream(
  ctx: AppContext,
  res: ServerResponse,
  script: StreamScript,
  delays: StreamDelays,
): Promise<"completed" | "error"> {
  const gone = clientGoneSignal(res);
  const atMostAll = (count: number | undefined) =>
    count === undefined ? undefined : Math.min(count, script.deltas.length);
  const errorAt = atMostAll(script.errorAfter);
  const dropAt = atMostAll(script.dropAfter);

  // Settles once the latest event has left the process, so a drop cuts after it, not before.
  let flushed = Promise.resolve();
  const emit = (event: StreamEvent) => {
    flushed = new Promise((resolve) => {
      if (!writeEvent(res, ctx.behavior, event, resolve)) resolve();
    });
  };

  const { broken } = ctx.behavior;
  // Mutant only: the first delta overtakes response.created.
  const early = broken.deltaBeforeCreated && script.deltas.length > 0 ? 1 : 0;
  await pause(ctx, delays.firstEventMs, gone);
  if (early === 1) emit({ type: EVENT.delta, delta: script.deltas[0] ?? "" });
  emit({ type: EVENT.created, conversation_id: script.conversationId });
  if (delays.afterCreatedMs > 0) await pause(ctx, delays.afterCreatedMs, gone);
  for (let sent = early; sent <= script.deltas.length; sent++) {
    if (sent === dropAt) {
      await flushed;
      dropConnection(res);
    }
    await pause(ctx, delays.betweenMs, gone);
    if (sent === errorAt) {
      const { code, message } = script.fail(sent);
      emit({ type: EVENT.error, code, message });
      if (broken.eventsAfterError) emit({ type: EVENT.delta, delta: " (written after the error)" });
      endEventStream(res);
      return "error";
    }
    const delta = script.deltas[sent];
    if (delta !== undefined) emit({ type: EVENT.delta, delta });
  }
  const response = script.complete();
  // One completed event; mutants send none or two.
  for (let i = 0; i < broken.completedEvents; i++) emit({ type: EVENT.completed, response });
  endEventStream(res);
  return "completed";
}
