/**
 * Part of section "proxy": the traffic judge's own cost, in its thread, off the forwarding
 * path: microseconds per exchange and heap per thousand conversations remembered, over
 * synthetic conforming traffic (targets/judge-probe.ts). Absolute figures, for context: the
 * judge keeps at most 100,000 conversations and their keys.
 */
import type { Figure } from "./figures.ts";
import { round } from "./stats.ts";
import type { JudgeProbeResult } from "./targets/judge-probe.ts";
import { startWorker } from "./worker.ts";

const MiB = 1024 * 1024;

export async function judgeCostFigures(
  conversations: number,
): Promise<{ figures: Figure[]; details: Record<string, unknown> }> {
  const worker = startWorker("targets/judge-probe.ts", { exposeGc: true });
  try {
    const result = await worker.call<JudgeProbeResult>("judge", { conversations });
    if (result.violations > 0)
      throw new Error(`the traffic judge found ${result.violations} violation(s) in conforming traffic`);
    const heapPerThousand = (result.heapAfterBytes - result.heapBeforeBytes) / MiB / (conversations / 1000);
    return {
      figures: [
        {
          metric: `traffic judge: microseconds per exchange (${result.exchanges} exchanges of ${conversations} conversations)`,
          value: round((result.judgeMs * 1000) / result.exchanges, 1),
          unit: "µs",
        },
        {
          metric: "traffic judge: heap per 1,000 conversations remembered",
          value: round(heapPerThousand, 2),
          unit: "MiB",
        },
      ],
      details: { judge: result },
    };
  } finally {
    await worker.stop();
  }
}
