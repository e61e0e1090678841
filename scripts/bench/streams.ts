/**
 * Section 3: many streams at once. N concurrent streams of exactly D deltas each (the fake's
 * Behavior swapped to split every answer into D pieces), with the fake's configured delay
 * between deltas, and the same load against a bare SSE handler playing the same script.
 * Counted: failed streams, time to first event (connection set-up included: N connections
 * open at once), and the gaps between consecutive events as the client saw them: a
 * buffering server would show gaps near 0, an incremental one gaps near the configured delay.
 */

import { randomUUID } from "node:crypto";
import { createParser, type EventSourceMessage } from "eventsource-parser";
import { Pool } from "undici";
import { EVENT, StreamEvent } from "../../schemas/index.ts";
import { atMost, type Section } from "./figures.ts";
import type { BenchSettings } from "./settings.ts";
import { median, percentile, round } from "./stats.ts";
import { startWorker } from "./worker.ts";

const AGENT = "agent-a";
const KEY = "sk-fake-a";
const MESSAGES = [
  "How do I export my calendar?",
  "How do I share and export my calendar with reminders?",
  "Why are my tasks not syncing between my phone and laptop?",
  "How much does the Pro plan cost?",
];

interface StreamOutcome {
  failure: string | undefined;
  firstEventMs: number | undefined;
  /** Client-side gaps between consecutive events, in ms. */
  gaps: number[];
}

async function oneStream(pool: Pool, index: number, deltas: number): Promise<StreamOutcome> {
  const started = performance.now();
  const arrivals: number[] = [];
  const events: EventSourceMessage[] = [];
  const parser = createParser({
    onEvent: (event) => {
      arrivals.push(performance.now());
      events.push(event);
    },
  });
  const outcome = (failure: string | undefined): StreamOutcome => ({
    failure,
    firstEventMs: arrivals[0] === undefined ? undefined : arrivals[0] - started,
    gaps: arrivals.slice(1).map((at, i) => at - (arrivals[i] ?? at)),
  });
  try {
    const response = await pool.request({
      method: "POST",
      path: `/v1/agents/${AGENT}/responses/stream`,
      headers: {
        authorization: `Bearer ${KEY}`,
        "content-type": "application/json",
        accept: "text/event-stream",
        "idempotency-key": randomUUID(),
      },
      body: JSON.stringify({ message: MESSAGES[index % MESSAGES.length] }),
    });
    if (response.statusCode !== 200) {
      await response.body.dump();
      return outcome(`status ${response.statusCode}`);
    }
    const decoder = new TextDecoder();
    for await (const chunk of response.body as AsyncIterable<Buffer>)
      parser.feed(decoder.decode(chunk, { stream: true }));
  } catch (error) {
    return outcome(error instanceof Error ? error.message : String(error));
  }
  const parsed = events.map((event) => StreamEvent.safeParse(JSON.parse(event.data)));
  const payloads = parsed.flatMap((result) => (result.success ? [result.data] : []));
  if (payloads.length !== events.length) return outcome("an event does not match its schema");
  const last = payloads.at(-1);
  const deltaTexts = payloads.flatMap((event) => (event.type === EVENT.delta ? [event.delta] : []));
  if (payloads[0]?.type !== EVENT.created || last?.type !== EVENT.completed) return outcome("not created … completed");
  if (deltaTexts.length !== deltas) return outcome(`${deltaTexts.length} deltas instead of ${deltas}`);
  if (deltaTexts.join("") !== last.response.output_text) return outcome("the deltas do not add up to output_text");
  return outcome(undefined);
}

interface LoadResult {
  failures: string[];
  firstEvent: number[];
  gaps: number[];
  wallMs: number;
}

/** One warm-up stream, then every stream at once, each on its own connection. */
async function load(url: string, config: BenchSettings["streams"]): Promise<LoadResult> {
  const pool = new Pool(url, { connections: config.streams, pipelining: 1 });
  try {
    const warm = await oneStream(pool, 0, config.deltas);
    if (warm.failure) throw new Error(`a single stream already fails: ${warm.failure}`);
    const began = performance.now();
    const outcomes = await Promise.all(
      Array.from({ length: config.streams }, (_, i) => oneStream(pool, i, config.deltas)),
    );
    return {
      wallMs: performance.now() - began,
      failures: outcomes.flatMap((o) => (o.failure === undefined ? [] : [o.failure])),
      firstEvent: outcomes.flatMap((o) => (o.firstEventMs === undefined ? [] : [o.firstEventMs])),
      gaps: outcomes.filter((o) => o.failure === undefined).flatMap((o) => o.gaps),
    };
  } finally {
    await pool.close();
  }
}

async function measureFake(config: BenchSettings["streams"]): Promise<LoadResult & { stored: unknown }> {
  const worker = startWorker("targets/fake-target.ts");
  try {
    const { url } = await worker.call<{ url: string }>("start", {
      options: { deltaDelayMs: config.deltaDelayMs },
      deltas: config.deltas,
    });
    const result = await load(url, config);
    return { ...result, stored: await worker.call("stats") };
  } finally {
    await worker.stop();
  }
}

async function measureBare(config: BenchSettings["streams"]): Promise<LoadResult> {
  const worker = startWorker("targets/bare-sse-target.ts");
  try {
    const { url } = await worker.call<{ url: string }>("start", {
      deltas: config.deltas,
      delayMs: config.deltaDelayMs,
    });
    return await load(url, config);
  } finally {
    await worker.stop();
  }
}

export async function streamsSection(settings: BenchSettings): Promise<Section> {
  const config = settings.streams;
  const bare = await measureBare(config);
  const fake = await measureFake(config);
  const ratio = (a: number, b: number) => round(a / b, 2);
  const summary = (result: LoadResult) => ({
    wallMs: round(result.wallMs, 1),
    failures: result.failures.length,
    firstFailures: result.failures.slice(0, 10),
    firstEventP50Ms: round(median(result.firstEvent), 1),
    firstEventP99Ms: round(percentile(result.firstEvent, 99), 1),
    gapP10Ms: round(percentile(result.gaps, 10), 1),
    gapP50Ms: round(median(result.gaps), 1),
    gapP90Ms: round(percentile(result.gaps, 90), 1),
    gapsBelowHalfDelay: result.gaps.filter((gap) => gap < config.deltaDelayMs / 2).length,
    gapsCounted: result.gaps.length,
  });
  return {
    name: "streams",
    title: `${config.streams} concurrent streams of ${config.deltas} deltas, ${config.deltaDelayMs} ms apart: fake vs bare SSE handler`,
    figures: [
      { metric: "failed streams (fake)", value: fake.failures.length, unit: "streams", target: atMost(0) },
      {
        metric: "time to first event p50, fake / bare",
        value: ratio(median(fake.firstEvent), median(bare.firstEvent)),
        unit: "ratio",
      },
      {
        metric: "time to first event p99, fake / bare",
        value: ratio(percentile(fake.firstEvent, 99), percentile(bare.firstEvent, 99)),
        unit: "ratio",
      },
      { metric: "time to first event p50 (fake)", value: round(median(fake.firstEvent), 1), unit: "ms" },
      { metric: "time to first event p99 (fake)", value: round(percentile(fake.firstEvent, 99), 1), unit: "ms" },
      { metric: "time to first event p50 (bare)", value: round(median(bare.firstEvent), 1), unit: "ms" },
      {
        metric: "median gap between events / configured delay (fake)",
        value: ratio(median(fake.gaps), config.deltaDelayMs),
        unit: "ratio",
      },
      {
        metric: "median gap between events / configured delay (bare)",
        value: ratio(median(bare.gaps), config.deltaDelayMs),
        unit: "ratio",
      },
    ],
    details: { ...config, fake: { ...summary(fake), storedAfterwards: fake.stored }, bare: summary(bare) },
  };
}
