/**
 * Stream helpers: open a stream (and remember it for the run-wide SSE-6 check), read its
 * events by name, take out the completed response, and tell a slow stream from a broken one.
 */
import { EVENT, SpecCompletedEvent, Uuid, type SpecCompletedResponse } from "../../../schemas/index.ts";
import { expectShape, fail } from "../../harness/expect.ts";
import type { CreateOptions, Identity, StreamResult, Target } from "../../harness/types.ts";

/**
 * Every stream this run has read, so checks that cannot provoke what they judge (an `error`
 * event, a multi-delta stream) also judge what other checks saw. Kept on globalThis because
 * the check files share one worker but may not share module instances.
 */
const REGISTRY = Symbol.for("agent-conformance.observed-streams");
const MAX_OBSERVED = 500;

type Registry = { [REGISTRY]?: StreamResult[] };

export function observedStreams(): readonly StreamResult[] {
  return (globalThis as Registry)[REGISTRY] ?? [];
}

function remember(result: StreamResult): void {
  const holder = globalThis as Registry;
  const list = (holder[REGISTRY] ??= []);
  if (list.length < MAX_OBSERVED) list.push(result);
}

/** Sends a stream request and records the result for the run-wide stream checks. */
export async function openStream(target: Target, options: CreateOptions): Promise<StreamResult> {
  const result = await target.client.stream(options);
  remember(result);
  return result;
}

/** The event names in arrival order; an event without an `event:` line shows as "(no event line)". */
export function eventNames(result: StreamResult): string[] {
  return result.events.map((e) => e.event ?? "(no event line)");
}

/** The `delta` strings of the delta events, in order (events whose payload is not a delta are skipped). */
export function deltaTexts(result: StreamResult): string[] {
  return result.events
    .filter((e) => e.event === EVENT.delta)
    .map((e) => (e.json as { delta?: unknown } | undefined)?.delta)
    .filter((d): d is string => typeof d === "string");
}

/** The payload of the (first) response.completed event, validated with the spec schema. */
export function completedOf(result: StreamResult, context: string): SpecCompletedResponse {
  const completed = result.events.find((e) => e.event === EVENT.completed);
  if (completed === undefined) {
    fail(`${context}: expected a ${EVENT.completed} event, got events [${eventNames(result).join(", ")}]`, result);
  }
  return expectShape(SpecCompletedEvent, completed.json, `${context}: the ${EVENT.completed} payload`, result).response;
}

/** The conversation a stream belongs to, from its completed event, or from its created event if that names one. */
export function streamConversationId(result: StreamResult): string | undefined {
  for (const event of result.events) {
    const json = event.json as { conversation_id?: unknown; response?: { conversation_id?: unknown } } | undefined;
    const candidate = event.event === EVENT.completed ? json?.response?.conversation_id : json?.conversation_id;
    if (Uuid.safeParse(candidate).success) return candidate as string;
  }
  return undefined;
}

/** Tracks the stream's conversation for cleanup, when the stream reveals it. */
export function trackStream(target: Target, result: StreamResult, owner: Identity = target.primary): void {
  const id = streamConversationId(result);
  if (id !== undefined) target.track(id, owner);
}

export { cutShort, inconclusiveIfCutShort } from "../../harness/expect.ts";
