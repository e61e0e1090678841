/**
 * Stream helpers: open a stream (and remember it for the run-wide SSE-6 check), track its
 * conversation, and tell a slow stream from a broken one. Reading its events by name is
 * suite/judgements/streams.ts.
 */
import { streamConversationId } from "../../judgements/streams.ts";
import type { CreateOptions, Identity, StreamResult } from "../../http/types.ts";
import type { Target } from "../runtime/types.ts";

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

/** Tracks the stream's conversation for cleanup, when the stream reveals it. */
export function trackStream(target: Target, result: StreamResult, owner: Identity = target.primary): void {
  const id = streamConversationId(result);
  if (id !== undefined) target.track(id, owner);
}

export { cutShort, inconclusiveIfCutShort } from "../../judgements/expect.ts";
