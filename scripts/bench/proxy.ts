/**
 * Section "proxy": what the conformance proxy (judging on, in its own thread) adds. Per SSE
 * event: 100 concurrent streams from an upstream that stamps each event with the moment it wrote
 * it, the arrival minus that stamp for every delta, direct and through the proxy in the same
 * run. Each round measures both, alternating which goes first, and gives one paired difference
 * of their p50 and of their p99; the figure is the median of the rounds' differences, so one
 * round disturbed by the machine moves it little. The streams start spread over one delta
 * interval, as independent users' streams do; the same with all of them started at once (each
 * event of every stream written in the same instant) is shown beside it. Per plain create:
 * creates per second against the fake, direct and through the proxy, rounds alternating the order.
 * With --har: the heap over a long run (proxy-har-memory.ts).
 */
import { createParser } from "eventsource-parser";
import { Pool } from "undici";
import { atLeast, atMost, type Section } from "./figures.ts";
import { judgeCostFigures } from "./judge-cost.ts";
import { harMemoryFigures } from "./proxy-har-memory.ts";
import type { BenchSettings } from "./settings.ts";
import { median, percentile, round } from "./stats.ts";
import { load } from "./throughput.ts";
import { startWorker, type Worker } from "./worker.ts";

const stamp = () => performance.timeOrigin + performance.now();

/**
 * Milliseconds from each delta's writing upstream to its arrival here, over `streams`
 * concurrent streams whose starts are spread over `spreadMs` (0: all at once, so every stream
 * writes its events in the same instant).
 */
async function eventDelays(url: string, streams: number, spreadMs: number): Promise<number[]> {
  const pool = new Pool(url, { connections: streams });
  try {
    const runs = Array.from({ length: streams }, async (_, index) => {
      await new Promise((resolve) => setTimeout(resolve, (index * spreadMs) / streams));
      const delays: number[] = [];
      const response = await pool.request({
        path: "/v1/agents/a/responses/stream",
        method: "POST",
        headers: {
          "content-type": "application/json",
          accept: "text/event-stream",
          authorization: "Bearer sk-bench",
          "idempotency-key": crypto.randomUUID(),
        },
        body: JSON.stringify({ message: "bench" }),
      });
      const parser = createParser({
        onEvent: (event) => {
          const arrived = stamp();
          if (event.event === "response.output_text.delta")
            delays.push(arrived - (JSON.parse(event.data) as { sent: number }).sent);
        },
      });
      const decoder = new TextDecoder();
      for await (const chunk of response.body as AsyncIterable<Buffer>)
        parser.feed(decoder.decode(chunk, { stream: true }));
      return delays;
    });
    return (await Promise.all(runs)).flat();
  } finally {
    await pool.close();
  }
}

async function withWorkers<T>(
  entries: [string, unknown][],
  run: (urls: string[], workers: Worker[]) => Promise<T>,
): Promise<T> {
  const workers = entries.map(([entry]) => startWorker(entry));
  try {
    const urls: string[] = [];
    for (const [i, [, start]] of entries.entries()) {
      const worker = workers[i];
      if (worker === undefined) throw new Error("no worker");
      urls.push(
        (await worker.call<{ url: string }>("start", { ...(start as object), ...(i > 0 ? { upstream: urls[0] } : {}) }))
          .url,
      );
    }
    return await run(urls, workers);
  } finally {
    for (const worker of workers) await worker.stop();
  }
}

/**
 * Creates per second against the fake with `options`, direct and through the proxy, rounds
 * alternating the order. Against the LLM-paced fake each create takes as long as a model's
 * answer, as a deployed service's do; against the instant fake the three processes (load,
 * proxy, fake) share the machine's cores and the figure measures CPU, not added latency.
 */
async function createRates(settings: BenchSettings, options: object, connections: number) {
  return withWorkers(
    [
      ["targets/fake-target.ts", { options }],
      ["targets/proxy-target.ts", {}],
    ],
    async ([direct = "", proxied = ""]) => {
      const ratios: number[] = [];
      const rates: { direct: number; proxied: number }[] = [];
      const throughput = settings.throughput;
      await load(direct, connections, throughput.warmupSeconds);
      await load(proxied, connections, throughput.warmupSeconds);
      for (let round = 0; round < throughput.rounds; round++) {
        const first = round % 2 === 0 ? direct : proxied;
        const a = await load(first, connections, throughput.durationSeconds);
        const b = await load(first === direct ? proxied : direct, connections, throughput.durationSeconds);
        const [d, p] = first === direct ? [a, b] : [b, a];
        if (d.non2xx + d.errors + p.non2xx + p.errors > 0)
          throw new Error("non-2xx answers or errors under load; the figure would be meaningless");
        rates.push({ direct: d.requestsPerSecond, proxied: p.requestsPerSecond });
        ratios.push(p.requestsPerSecond / d.requestsPerSecond);
      }
      return { ratios, rates };
    },
  );
}

/** One round's paired figures: proxied minus direct at p50 and p99, and the direct p99 itself. */
interface RoundDifference {
  p50: number;
  p99: number;
  directP99: number;
}

/** Both targets once, in the given order, and the difference of their percentiles. */
async function pairedRound(
  direct: string,
  proxied: string,
  streams: number,
  spreadMs: number,
  directFirst: boolean,
): Promise<RoundDifference> {
  const first = await eventDelays(directFirst ? direct : proxied, streams, spreadMs);
  const second = await eventDelays(directFirst ? proxied : direct, streams, spreadMs);
  const [viaDirect, viaProxy] = directFirst ? [first, second] : [second, first];
  return {
    p50: percentile(viaProxy, 50) - percentile(viaDirect, 50),
    p99: percentile(viaProxy, 99) - percentile(viaDirect, 99),
    directP99: percentile(viaDirect, 99),
  };
}

const spread = (values: number[]) =>
  `ms (rounds from ${round(Math.min(...values), 3)} to ${round(Math.max(...values), 3)} ms)`;

export async function proxySection(settings: BenchSettings): Promise<Section> {
  const config = settings.proxy;
  const events = await withWorkers(
    [
      ["targets/stamped-sse-target.ts", { deltas: config.deltas, delayMs: config.delayMs }],
      ["targets/proxy-target.ts", {}],
    ],
    async ([direct = "", proxied = ""]) => {
      await eventDelays(direct, 10, 0);
      await eventDelays(proxied, 10, 0);
      const spreadRounds: RoundDifference[] = [];
      const burstRounds: RoundDifference[] = [];
      for (let round = 0; round < config.rounds; round++) {
        spreadRounds.push(await pairedRound(direct, proxied, config.streams, config.delayMs, round % 2 === 0));
        burstRounds.push(await pairedRound(direct, proxied, config.streams, 0, round % 2 === 1));
      }
      return { spreadRounds, burstRounds };
    },
  );
  const pacedCreates = await createRates(settings, { variants: ["llm-pacing"] }, config.pacedConnections);
  const instantCreates = await createRates(settings, {}, settings.throughput.connections);
  const harMemory = await harMemoryFigures({
    exchanges: config.harExchanges,
    connections: config.harConnections,
    limitSeconds: config.harLimitSeconds,
  });
  const judgeCost = await judgeCostFigures(config.judgeConversations);
  const p50s = events.spreadRounds.map((r) => r.p50);
  const p99s = events.spreadRounds.map((r) => r.p99);
  const burstP99s = events.burstRounds.map((r) => r.p99);
  const directP99s = events.spreadRounds.map((r) => r.directP99);
  return {
    name: "proxy",
    title: `Proxy (judging on): added latency per SSE event at ${config.streams} concurrent streams, plain creates per second, heap with --har`,
    figures: [
      {
        metric: `added latency per event, p50 (proxied p50 − direct p50), median of ${config.rounds} paired rounds`,
        value: round(median(p50s), 3),
        unit: spread(p50s),
      },
      {
        metric: `added latency per event, p99 (proxied p99 − direct p99), median of ${config.rounds} paired rounds`,
        value: round(median(p99s), 3),
        unit: spread(p99s),
        target: atMost(1),
      },
      {
        metric: "the same p99, all streams started at once (every event of every stream in one instant)",
        value: round(median(burstP99s), 3),
        unit: spread(burstP99s),
      },
      {
        metric: "event latency direct, p99 (the noise the difference stands on)",
        value: round(median(directP99s), 3),
        unit: spread(directP99s),
      },
      {
        metric: `plain creates per second, proxied / direct, LLM-paced fake, ${config.pacedConnections} connections (median of rounds)`,
        value: round(median(pacedCreates.ratios)),
        unit: "ratio",
        target: atLeast(0.9),
      },
      {
        metric:
          "plain creates per second, proxied / direct, instant fake at full CPU (three processes on this machine's cores)",
        value: round(median(instantCreates.ratios)),
        unit: "ratio",
      },
      ...harMemory.figures,
      ...judgeCost.figures,
    ],
    details: {
      ...config,
      spreadRounds: events.spreadRounds,
      burstRounds: events.burstRounds,
      pacedCreateRates: pacedCreates.rates,
      instantCreateRates: instantCreates.rates,
      ...harMemory.details,
      ...judgeCost.details,
    },
  };
}
