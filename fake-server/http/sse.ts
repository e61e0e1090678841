/**
 * The event-stream writer: the headers at once, each event written as soon as it exists, and the
 * framing the variants choose (line endings, heartbeats, ids, split writes) or a mutant breaks.
 */
import type { ServerResponse } from "node:http";
import { setTimeout as sleep } from "node:timers/promises";
import { EVENT, type StreamEvent } from "../../schemas/index.ts";
import type { Behavior } from "../behavior/behavior.ts";
import { withExtraFields } from "./extra-fields.ts";

/** What the writer remembers of one stream: its event ids, its pending writes, what a mutant holds back. */
interface StreamState {
  lastId: number;
  /** Settles when every piece written so far has left the process (split writes). */
  queue: Promise<void>;
  /** Events held back until the end (the buffering mutant). */
  held: string[];
}

const streams = new WeakMap<ServerResponse, StreamState>();

function stateOf(res: ServerResponse): StreamState {
  let state = streams.get(res);
  if (!state) {
    state = { lastId: 0, queue: Promise.resolve(), held: [] };
    streams.set(res, state);
  }
  return state;
}

/** Starts an event stream: the headers go out at once, before the first event exists. */
export function startEventStream(
  res: ServerResponse,
  behavior: Pick<Behavior, "sseHeartbeats" | "sseLineEnding" | "broken">,
  status: number,
  headers: Readonly<Record<string, string>> = {},
): void {
  res.writeHead(status, {
    ...headers,
    "Content-Type": behavior.broken.streamContentType,
    "Cache-Control": "no-cache",
  });
  res.flushHeaders();
  // The heartbeats variant also tells clients how long to wait before reconnecting.
  if (behavior.sseHeartbeats) res.write(`retry: 3000${behavior.sseLineEnding}${behavior.sseLineEnding}`);
}

/** The `data` payload of an event as this behavior writes it (mutants rename or retype fields). */
function eventPayload(behavior: Pick<Behavior, "extraFields" | "broken">, event: StreamEvent): object {
  const { broken } = behavior;
  let payload: object = event;
  if (event.type === EVENT.created && broken.createdTypeMismatch) payload = { ...event, type: "response.started" };
  if (event.type === EVENT.delta && broken.deltaField === "text") payload = { type: event.type, text: event.delta };
  if (event.type === EVENT.completed && broken.completedTextField === "response") {
    const { output_text: text, ...rest } = event.response;
    payload = { type: event.type, response: { ...rest, response: text } };
  }
  return withExtraFields(behavior, payload);
}

/** Where the split-writes variant cuts an event: inside its first multi-byte character, somewhere, and before its last byte. */
function cutPoints(bytes: Buffer, salt: number): number[] {
  const cuts = new Set<number>();
  const lead = bytes.findIndex((byte) => byte >= 0xc0);
  if (lead !== -1) cuts.add(lead + 1);
  cuts.add(1 + ((salt * 7919) % Math.max(1, bytes.length - 1)));
  cuts.add(bytes.length - 1);
  return [...cuts].filter((cut) => cut > 0 && cut < bytes.length).sort((a, b) => a - b);
}

/** Writes the pieces one after another, each once the previous one has left the process, a moment apart. */
async function writePieces(res: ServerResponse, pieces: readonly Buffer[]): Promise<void> {
  for (const [index, piece] of pieces.entries()) {
    if (res.destroyed || res.writableEnded) return;
    if (index > 0) await sleep(1);
    await new Promise<void>((resolve) => res.write(piece, () => resolve()));
  }
}

/**
 * The one SSE event writer: `event: NAME`, `data: JSON`, blank line, written as soon as the
 * event is produced (in a single write, or in pieces under the split-writes variant). The
 * event name is the payload's `type`, so the two cannot disagree (unless a mutant says so);
 * JSON.stringify never emits a raw line break, so `data` is one line. The variants add
 * a `: keep-alive` comment before the event and an `id:` line.
 * Returns false when the client is gone and nothing was written; otherwise `onFlushed`
 * runs once the bytes have left the process.
 */
export function writeEvent(
  res: ServerResponse,
  behavior: Pick<
    Behavior,
    "sseLineEnding" | "sseHeartbeats" | "sseEventIds" | "sseSplitWrites" | "extraFields" | "broken"
  >,
  event: StreamEvent,
  onFlushed?: () => void,
): boolean {
  if (res.destroyed || res.writableEnded) return false;
  if (/[\r\n]/.test(event.type)) throw new Error(`event name ${JSON.stringify(event.type)} contains a line break`);
  const eol = behavior.sseLineEnding;
  const state = stateOf(res);
  const lines: string[] = [];
  if (behavior.sseHeartbeats) lines.push(": keep-alive", "");
  if (event.type !== EVENT.delta || behavior.broken.deltaEventLine) lines.push(`event: ${event.type}`);
  if (behavior.sseEventIds) lines.push(`id: ${++state.lastId}`);
  lines.push(`data: ${JSON.stringify(eventPayload(behavior, event))}`, "");
  const text = `${lines.join(eol)}${eol}`;
  if (behavior.broken.streamBuffered) {
    state.held.push(text);
    onFlushed?.();
    return true;
  }
  if (!behavior.sseSplitWrites) {
    res.write(text, onFlushed);
    return true;
  }
  const bytes = Buffer.from(text);
  const cuts = cutPoints(bytes, state.lastId + state.held.length + bytes.length);
  const pieces = [0, ...cuts].map((start, i) => bytes.subarray(start, cuts[i] ?? bytes.length));
  state.queue = state.queue.then(() => writePieces(res, pieces)).then(() => onFlushed?.());
  return true;
}

/** Ends an event stream once everything written (or held back) has gone out. */
export function endEventStream(res: ServerResponse): void {
  const state = streams.get(res);
  const end = () => {
    if (res.destroyed || res.writableEnded) return;
    res.end(state?.held.join("") ?? "");
  };
  if (state === undefined) end();
  else state.queue = state.queue.then(end);
}
