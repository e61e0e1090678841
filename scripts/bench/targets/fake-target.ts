/**
 * Benchmark worker: the reference fake, exactly as `createFakeServer` builds it (idempotency
 * and storage on), except for the Behavior a benchmark may swap (the number of deltas).
 * `seedConversation` fills the store through the fake's internal API instead of HTTP.
 */

import { DEFAULT_BEHAVIOR } from "../../../fake-server/behavior/behavior.ts";
import type { FakeServerOptions } from "../../../fake-server/options.ts";
import { startFakeServer, type InspectableFakeServer } from "../../../fake-server/server.ts";
import { serveCalls } from "../worker.ts";

export interface FakeTargetStart {
  options: FakeServerOptions;
  /** Every stream answer is split into exactly this many deltas (when the text has enough words). */
  deltas?: number;
}

let server: InspectableFakeServer | undefined;

function running(): InspectableFakeServer {
  if (!server) throw new Error("the fake is not started");
  return server;
}

serveCalls({
  async start({ options, deltas }: FakeTargetStart) {
    // The options' own behavior (variants, mutant, pacing) unless the delta count is fixed.
    const dependencies =
      deltas === undefined ? {} : { behavior: { ...DEFAULT_BEHAVIOR, deltaCount: { min: deltas, max: deltas } } };
    server = await startFakeServer({ ...options, port: 0, host: "127.0.0.1" }, dependencies);
    return { url: server.url };
  },
  /** A conversation of `messages` messages (an even number: user and assistant alternate) owned by agent/channel. */
  seedConversation({ agentId, channel, messages }: { agentId: string; channel: string; messages: number }) {
    const conversation = running().app.internals.conversations.seed(agentId, channel, messages / 2);
    return { conversationId: conversation.id, messages: conversation.messages.length };
  },
  stats() {
    return running().app.internals.snapshot();
  },
  /** The heap after a full collection (the worker runs with --expose-gc), and what the stores hold. */
  heap() {
    const collect = (globalThis as { gc?: () => void }).gc;
    if (!collect) throw new Error("run with --expose-gc");
    collect();
    const { conversations, idempotencyRecords } = running().app.internals.snapshot();
    return { heapUsedBytes: process.memoryUsage().heapUsed, conversations, idempotencyRecords };
  },
  async close() {
    await running().close();
    return null;
  },
});
