/**
 * Section 4: memory. Bytes per stored message at a million messages of ~100 characters, and
 * the heap after deleting every conversation against the heap before they were stored.
 * Measured in a separate process started with --expose-gc (targets/memory-probe.ts).
 */

import { atMost, type Section } from "./figures.ts";
import type { BenchSettings } from "./settings.ts";
import { round } from "./stats.ts";
import type { MemoryProbeInput } from "./targets/memory-probe.ts";
import { startWorker } from "./worker.ts";

interface ProbeResult {
  baselineBytes: number;
  filledBytes: number;
  emptiedBytes: number;
  storedMessages: number;
  remainingAfterDelete: { conversations: number; messages: number };
  bytesPerMessage: number;
  emptiedVsBaseline: number;
  creates: number;
  bytesPerCreate: number;
}

const MiB = 1024 * 1024;

export async function memorySection(settings: BenchSettings): Promise<Section> {
  const config = settings.memory;
  const worker = startWorker("targets/memory-probe.ts", { exposeGc: true });
  try {
    const input: MemoryProbeInput = { ...config, creates: settings.quick ? 2_000 : 20_000 };
    const result = await worker.call<ProbeResult>("measure", input);
    if (result.remainingAfterDelete.conversations !== 0 || result.remainingAfterDelete.messages !== 0) {
      throw new Error(`deleting every conversation left ${JSON.stringify(result.remainingAfterDelete)}`);
    }
    return {
      name: "memory",
      title: `Heap: ${result.storedMessages.toLocaleString("en-US")} stored messages of ${config.textLength} characters`,
      figures: [
        {
          metric: "heap per stored message",
          value: Math.round(result.bytesPerMessage),
          unit: "bytes",
          target: atMost(1024),
        },
        {
          metric: "heap after deleting all / before storing",
          value: round(result.emptiedVsBaseline),
          unit: "ratio",
          target: atMost(1.1),
        },
        {
          metric: "heap per plain create over HTTP (2 messages + idempotency record)",
          value: Math.round(result.bytesPerCreate),
          unit: "bytes",
        },
        { metric: "heap before storing", value: round(result.baselineBytes / MiB, 1), unit: "MiB" },
        { metric: "heap with every message stored", value: round(result.filledBytes / MiB, 1), unit: "MiB" },
      ],
      details: { ...config, ...result },
    };
  } finally {
    await worker.stop();
  }
}
