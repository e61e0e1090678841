/**
 * Section "controls": what the client developer's features cost a plain create, and whether a
 * long-running shared fake stays bounded.
 *
 * Throughput: the fake with CORS off and requests in the default session (the closest to a fake
 * without those features) against the default fake with requests in a named session and zero
 * rules, and with 20 fault and 20 answer rules that never match. Same load, rounds alternating
 * the order, each target in a fresh process warmed up first. What is always on (the session
 * lookup, the fuller journal) is in both; PERFORMANCE.md says how it was measured against the
 * fake before those features.
 *
 * Heap: a fake with small caps (conversations per session, sessions, idempotency TTL) under a
 * steady rate of creates spread over more sessions than it keeps, the heap sampled after a
 * full collection; flat means the last quarter's median is within 10% of the second quarter's.
 */

import { randomUUID } from "node:crypto";
import autocannon from "autocannon";
import { atLeast, atMost, type Section } from "./figures.ts";
import { benchBody } from "./messages.ts";
import type { BenchSettings } from "./settings.ts";
import { median, round } from "./stats.ts";
import { measured, type Measured } from "./throughput.ts";
import { startWorker } from "./worker.ts";

const SESSION = "bench";
const RULES = 20;

type Variant = "off" | "zeroRules" | "idleRules";

async function addIdleRules(url: string): Promise<void> {
  const origin = new URL(url).origin;
  for (let i = 0; i < RULES; i++) {
    const post = (path: string, body: unknown) =>
      fetch(`${origin}${path}?session=${SESSION}`, { method: "POST", body: JSON.stringify(body) }).then(async (res) => {
        if (res.status !== 201) throw new Error(`${path} answered ${res.status}: ${await res.text()}`);
      });
    await post("/__fake/faults", { match: { message_contains: `never-sent-${i}` }, fault: "status=503", times: 0 });
    await post("/__fake/answers", { match: { message_contains: `never-sent-${i}` }, answer: { text: "scripted" } });
  }
}

async function measureVariant(variant: Variant, settings: BenchSettings["throughput"]): Promise<Measured> {
  const worker = startWorker("targets/fake-target.ts");
  try {
    const { url } = await worker.call<{ url: string }>("start", { options: variant === "off" ? { cors: false } : {} });
    if (variant === "idleRules") await addIdleRules(url);
    const run = await measured(worker, url, settings, variant === "off" ? {} : { "x-fake-session": SESSION });
    if (run.non2xx > 0 || run.errors > 0)
      throw new Error(`the fake (${variant}) answered ${run.non2xx} non-2xx and ${run.errors} errors`);
    return run;
  } finally {
    await worker.stop();
  }
}

interface HeapSample {
  atSeconds: number;
  heapUsedBytes: number;
  conversations: number;
  idempotencyRecords: number;
}

/** A steady rate of creates over `sessions` session names for `seconds`, the heap sampled every `everySeconds`. */
async function heapOverTime(
  config: BenchSettings["controls"],
): Promise<{ samples: HeapSample[]; creates: number; non2xx: number }> {
  const worker = startWorker("targets/fake-target.ts", { exposeGc: true });
  try {
    const options = {
      maxConversations: config.maxConversations,
      maxSessions: config.maxSessions,
      idempotencyTtlMs: config.idempotencyTtlMs,
    };
    const { url } = await worker.call<{ url: string }>("start", { options });
    const samples: HeapSample[] = [];
    const started = performance.now();
    const sampler = setInterval(() => {
      void worker
        .call<Omit<HeapSample, "atSeconds">>("heap")
        .then((sample) => samples.push({ atSeconds: round((performance.now() - started) / 1000, 1), ...sample }));
    }, config.everySeconds * 1000);
    let sent = 0;
    try {
      const result = await autocannon({
        url,
        connections: 8,
        duration: config.seconds,
        overallRate: config.ratePerSecond,
        requests: [
          {
            method: "POST",
            path: "/v1/agents/agent-a/responses",
            headers: { authorization: "Bearer sk-fake-a", "content-type": "application/json" },
            setupRequest: (request) => {
              const n = sent++;
              return {
                ...request,
                body: benchBody(n),
                headers: {
                  ...request.headers,
                  "idempotency-key": randomUUID(),
                  "x-fake-session": `s${n % config.sessions}`,
                },
              };
            },
          },
        ],
      });
      return { samples, creates: result["2xx"], non2xx: result.non2xx };
    } finally {
      clearInterval(sampler);
    }
  } finally {
    await worker.stop();
  }
}

const quarter = (samples: HeapSample[], index: number) =>
  samples.filter((_, i) => Math.floor((i * 4) / samples.length) === index).map((sample) => sample.heapUsedBytes);

export async function controlsSection(settings: BenchSettings): Promise<Section> {
  const config = settings.controls;
  const runs: Record<Variant, Measured[]> = { off: [], zeroRules: [], idleRules: [] };
  const order: Variant[] = ["off", "zeroRules", "idleRules"];
  for (let round = 0; round < settings.throughput.rounds; round++) {
    // Rotate which goes first, so that drift on a shared machine favours none.
    for (let i = 0; i < order.length; i++) {
      const variant = order[(round + i) % order.length] ?? "off";
      runs[variant].push(await measureVariant(variant, settings.throughput));
    }
  }
  const ratio = (variant: Variant) =>
    median(runs[variant].map((run, i) => run.requestsPerSecond / (runs.off[i]?.requestsPerSecond ?? Number.NaN)));
  const heap = await heapOverTime(config);
  if (heap.non2xx > 0) throw new Error(`the fake answered ${heap.non2xx} non-2xx during the heap run`);
  const second = median(quarter(heap.samples, 1));
  const last = median(quarter(heap.samples, 3));
  const MiB = 1024 * 1024;
  return {
    name: "controls",
    title: "Client developer's features: cost on a plain create, and a shared fake's heap over time",
    figures: [
      {
        metric: "session, zero rules / CORS off, default session: creates per second (median of rounds)",
        value: round(ratio("zeroRules")),
        unit: "ratio",
        target: atLeast(0.9),
      },
      {
        metric: `session, ${RULES} fault + ${RULES} answer rules never matching / CORS off (median of rounds)`,
        value: round(ratio("idleRules")),
        unit: "ratio",
      },
      {
        metric: "CORS off, default session: creates per second (median of rounds)",
        value: Math.round(median(runs.off.map((run) => run.requestsPerSecond))),
        unit: "req/s",
      },
      {
        metric: "heap, last quarter / second quarter of a steady run (median of samples)",
        value: round(last / second),
        unit: "ratio",
        target: atMost(1.1),
      },
      { metric: "heap, last quarter (median of samples)", value: round(last / MiB, 1), unit: "MiB" },
      { metric: "creates during the heap run", value: heap.creates, unit: "creates" },
    ],
    details: { throughput: settings.throughput, heapRun: config, rounds: runs, heapSamples: heap.samples },
  };
}
