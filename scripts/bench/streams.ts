/**
 * Section 3: many streams at once. N concurrent streams of exactly D deltas each (the fake's
 * Behavior swapped to split every answer into D pieces), with the fake's configured delay
 * between deltas. Counted: failed streams, time to first event, and the gaps between
 * consecutive events as the client saw them: a buffering server would show gaps near 0,
 * an incremental one gaps near the configured delay.
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
    for await (const chunk of response.body as AsyncIterable<Buffer>) parser.feed(decoder.decode(chunk, { stream: true }));
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

export async function streamsSection(settings: BenchSettings): Promise<Section> {
  const config = settings.streams;
  const worker = startWorker("targets/fake-target.ts");
  let pool: Pool | undefined;
  try {
    const { url } = await worker.call<{ url: string }>("start", {
      options: { deltaDelayMs: config.deltaDelayMs },
      deltas: config.deltas,
    });
    // One connection per stream: every stream is in flight at the same time.
    pool = new Pool(url, { connections: config.streams, pipelining: 1 });
    const warm = await oneStream(pool, 0, config.deltas);
    if (warm.failure) throw new Error(`a single stream already fails: ${warm.failure}`);
    const began = performance.now();
    const outcomes = await Promise.all(Array.from({ length: config.streams }, (_, i) => oneStream(pool as Pool, i, config.deltas)));
    const wallMs = performance.now() - began;
    const failures = outcomes.filter((o) => o.failure !== undefined);
    const firstEvent = outcomes.flatMap((o) => (o.firstEventMs === undefined ? [] : [o.firstEventMs]));
    const gaps = outcomes.filter((o) => o.failure === undefined).flatMap((o) => o.gaps);
    const stored = await worker.call<{ conversations: number; messages: number }>("stats");
    return {
      name: "streams",
      title: `${config.streams} concurrent streams of ${config.deltas} deltas, ${config.deltaDelayMs} ms apart`,
      figures: [
        { metric: "failed streams", value: failures.length, unit: "streams", target: atMost(0) },
        { metric: "time to first event p50", value: round(median(firstEvent), 1), unit: "ms" },
        { metric: "time to first event p99", value: round(percentile(firstEvent, 99), 1), unit: "ms" },
        { metric: "median gap between events", value: round(median(gaps), 1), unit: "ms" },
        { metric: "configured delay between events", value: config.deltaDelayMs, unit: "ms" },
        { metric: "median gap / configured delay", value: round(median(gaps) / config.deltaDelayMs, 2), unit: "ratio" },
      ],
      details: {
        ...config,
        wallMs: round(wallMs, 1),
        gapP10Ms: round(percentile(gaps, 10), 1),
        gapP90Ms: round(percentile(gaps, 90), 1),
        gapsBelowHalfDelay: gaps.filter((gap) => gap < config.deltaDelayMs / 2).length,
        gapsCounted: gaps.length,
        failures: failures.slice(0, 10).map((o) => o.failure),
        storedAfterwards: stored,
      },
    };
  } finally {
    await pool?.close();
    await worker.stop();
  }
}
