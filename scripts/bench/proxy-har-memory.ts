/**
 * Part of section "proxy": the proxy's memory with --har over a long run. The proxy (judging
 * and writing the HAR as `--har` does) in front of the instant fake gets plain creates, each
 * with a fresh key; its forwarding thread's heap after a full collection is read after the
 * first `exchanges / 10` and after all `exchanges`. HAR entries go to disk as exchanges finish,
 * so the two must be alike. Bounded in time: past `limitSeconds` the section fails.
 */
import { randomUUID } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import autocannon from "autocannon";
import { atMost, type Figure } from "./figures.ts";
import { benchBody } from "./messages.ts";
import { round } from "./stats.ts";
import { startWorker } from "./worker.ts";

export interface HarMemorySettings {
  exchanges: number;
  connections: number;
  limitSeconds: number;
}

interface Heap {
  heapUsedBytes: number;
  rssBytes: number;
}

const MiB = 1024 * 1024;

/** Sends exactly `amount` creates; rejects on a non-2xx answer or an error. */
async function sendCreates(url: string, amount: number, connections: number, first: number): Promise<void> {
  let sent = first;
  const result = await autocannon({
    url,
    connections,
    amount,
    requests: [
      {
        method: "POST",
        path: "/v1/agents/agent-a/responses",
        headers: { authorization: "Bearer sk-fake-a", "content-type": "application/json", accept: "application/json" },
        setupRequest: (request) => ({
          ...request,
          body: benchBody(sent++),
          headers: { ...request.headers, "idempotency-key": randomUUID() },
        }),
      },
    ],
  });
  if (result.non2xx + result.errors > 0)
    throw new Error(
      `non-2xx answers or errors through the proxy (${result.non2xx}, ${result.errors}); the figure would be meaningless`,
    );
}

function withinLimit<T>(work: Promise<T>, seconds: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const limit = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`the --har memory run took longer than ${seconds} s`)), seconds * 1000);
  });
  return Promise.race([work, limit]).finally(() => clearTimeout(timer));
}

export async function harMemoryFigures(
  settings: HarMemorySettings,
): Promise<{ figures: Figure[]; details: Record<string, unknown> }> {
  const dir = await mkdtemp(join(tmpdir(), "bench-har-"));
  const fake = startWorker("targets/fake-target.ts");
  const proxy = startWorker("targets/proxy-target.ts", { exposeGc: true });
  try {
    return await withinLimit(
      (async () => {
        const { url: upstream } = await fake.call<{ url: string }>("start", { options: {} });
        const { url } = await proxy.call<{ url: string }>("start", { upstream, harFile: join(dir, "bench.har") });
        const early = Math.round(settings.exchanges / 10);
        const started = performance.now();
        await sendCreates(url, early, settings.connections, 0);
        const afterEarly = await proxy.call<Heap>("heap");
        await sendCreates(url, settings.exchanges - early, settings.connections, early);
        const afterAll = await proxy.call<Heap>("heap");
        const seconds = (performance.now() - started) / 1000;
        const finished = await proxy.call<{ harWritten: number; judged: number }>("finish");
        if (finished.harWritten !== settings.exchanges)
          throw new Error(`the HAR holds ${finished.harWritten} entries, not ${settings.exchanges}`);
        const ratio = afterAll.heapUsedBytes / afterEarly.heapUsedBytes;
        return {
          figures: [
            {
              metric: `proxy heap with --har after ${settings.exchanges.toLocaleString("en-US")} exchanges / after ${early.toLocaleString("en-US")} (forwarding thread, after a full collection)`,
              value: round(ratio),
              unit: "ratio",
              target: atMost(1.1),
            },
            {
              metric: `proxy heap with --har after ${settings.exchanges.toLocaleString("en-US")} exchanges`,
              value: round(afterAll.heapUsedBytes / MiB, 1),
              unit: "MiB",
            },
            // The judging thread's memory is in the process's RSS: its memory of keys and conversations grows up to its caps.
            {
              metric: `proxy process RSS after ${early.toLocaleString("en-US")} and after ${settings.exchanges.toLocaleString("en-US")} exchanges (judging thread included)`,
              value: round(afterAll.rssBytes / MiB, 0),
              unit: `MiB (from ${round(afterEarly.rssBytes / MiB, 0)} MiB)`,
            },
          ],
          details: {
            harMemory: {
              ...settings,
              early,
              afterEarly,
              afterAll,
              seconds: round(seconds, 1),
              harEntries: finished.harWritten,
              judged: finished.judged,
            },
          },
        };
      })(),
      settings.limitSeconds,
    );
  } finally {
    await proxy.stop();
    await fake.stop();
    await rm(dir, { recursive: true, force: true });
  }
}
