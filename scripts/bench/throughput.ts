/**
 * Section 1: requests per second of plain creates against the fake (idempotency and storage
 * on) versus a bare polka JSON handler, under one load generator with the same connections,
 * duration and sequence of request bodies (distinct messages, ./messages.ts), each request with
 * a fresh Idempotency-Key. Targets alternate round by round, each in a fresh process warmed up
 * before it is measured.
 */

import { randomUUID } from "node:crypto";
import autocannon from "autocannon";
import { createAnswerEngine } from "../../fake-server/answers/engine.ts";
import { serialisedResult } from "../../fake-server/commit/commit.ts";
import { atLeast, type Section } from "./figures.ts";
import type { BenchSettings } from "./settings.ts";
import { median, round } from "./stats.ts";
import { benchBody, benchMessage, MESSAGE_COUNT } from "./messages.ts";
import { startWorker, type CpuUsage, type Worker } from "./worker.ts";

const AGENT = "agent-a";
const KEY = "sk-fake-a";
const PATH = `/v1/agents/${AGENT}/responses`;

export interface Measured {
  requestsPerSecond: number;
  /** The server process's CPU time (user + system) per answered request, in microseconds. */
  serverCpuPerRequestUs: number;
  ok: number;
  non2xx: number;
  errors: number;
  latencyP50Ms: number;
  latencyP99Ms: number;
}

export async function load(
  url: string,
  connections: number,
  seconds: number,
  extraHeaders: Readonly<Record<string, string>> = {},
): Promise<Omit<Measured, "serverCpuPerRequestUs">> {
  let sent = 0;
  const result = await autocannon({
    url,
    connections,
    duration: seconds,
    requests: [
      {
        method: "POST",
        path: PATH,
        headers: {
          authorization: `Bearer ${KEY}`,
          "content-type": "application/json",
          accept: "application/json",
          ...extraHeaders,
        },
        // A fresh key per request: every create is a new operation the fake must run and store.
        setupRequest: (request) => ({
          ...request,
          body: benchBody(sent++),
          headers: { ...request.headers, "idempotency-key": randomUUID() },
        }),
      },
    ],
  });
  return {
    requestsPerSecond: result.requests.total / result.duration,
    ok: result["2xx"],
    non2xx: result.non2xx,
    errors: result.errors,
    latencyP50Ms: result.latency.p50,
    latencyP99Ms: result.latency.p99,
  };
}

/**
 * The bare handler's one answer: the fake's serialised answer to the first message, its text
 * cut or padded so that the body is as long as the fake's answers to the sequence on average.
 * Both targets then send the same number of bytes per request.
 */
function fixedBody(): string {
  const engine = createAnswerEngine(1);
  const conversationId = randomUUID();
  let totalBytes = 0;
  for (let i = 0; i < MESSAGE_COUNT; i++) {
    totalBytes += Buffer.byteLength(serialisedResult(conversationId, engine.answer(benchMessage(i))));
  }
  const meanBytes = Math.round(totalBytes / MESSAGE_COUNT);
  const { text, citations } = engine.answer(benchMessage(0));
  const room = Math.max(0, meanBytes - Buffer.byteLength(serialisedResult(conversationId, { text: "", citations })));
  return serialisedResult(conversationId, { text: text.padEnd(room, " ").slice(0, room), citations });
}

/** Load after a warm-up, with the server's own CPU time over the measured window. */
export async function measured(
  worker: Worker,
  url: string,
  settings: BenchSettings["throughput"],
  extraHeaders: Readonly<Record<string, string>> = {},
): Promise<Measured> {
  await load(url, settings.connections, settings.warmupSeconds, extraHeaders);
  const cpuBefore = await worker.call<CpuUsage>("cpuUsage");
  const result = await load(url, settings.connections, settings.durationSeconds, extraHeaders);
  const cpuAfter = await worker.call<CpuUsage>("cpuUsage");
  const cpuUs = cpuAfter.user - cpuBefore.user + (cpuAfter.system - cpuBefore.system);
  return { ...result, serverCpuPerRequestUs: cpuUs / Math.max(1, result.ok + result.non2xx) };
}

async function measureFake(settings: BenchSettings["throughput"]): Promise<Measured & { stored: unknown }> {
  const worker = startWorker("targets/fake-target.ts");
  try {
    const { url } = await worker.call<{ url: string }>("start", { options: {} });
    const before = await worker.call<{ conversations: number; messages: number; idempotencyRecords: number }>("stats");
    const run = await measured(worker, url, settings);
    const after = await worker.call<{ conversations: number; messages: number; idempotencyRecords: number }>("stats");
    // Proof that the requests were served in full: one conversation, two messages and one
    // idempotency record per 2xx answer (warm-up included).
    const stored = {
      conversations: after.conversations - before.conversations,
      messages: after.messages - before.messages,
      idempotencyRecords: after.idempotencyRecords - before.idempotencyRecords,
    };
    return { ...run, stored };
  } finally {
    await worker.stop();
  }
}

async function measureBare(settings: BenchSettings["throughput"], body: string): Promise<Measured> {
  const worker = startWorker("targets/bare-target.ts");
  try {
    const { url } = await worker.call<{ url: string }>("start", { path: PATH, body });
    return await measured(worker, url, settings);
  } finally {
    await worker.stop();
  }
}

export async function throughputSection(settings: BenchSettings): Promise<Section> {
  const config = settings.throughput;
  const body = fixedBody();
  const bare: Measured[] = [];
  const fake: (Measured & { stored: unknown })[] = [];
  // Alternate which goes first, so that drift on a shared machine does not favour one.
  for (let round = 0; round < config.rounds; round++) {
    if (round % 2 === 0) {
      bare.push(await measureBare(config, body));
      fake.push(await measureFake(config));
    } else {
      fake.push(await measureFake(config));
      bare.push(await measureBare(config, body));
    }
  }
  for (const run of fake) {
    if (run.non2xx > 0 || run.errors > 0) {
      throw new Error(
        `the fake answered ${run.non2xx} non-2xx and ${run.errors} errors under load; the figure would be meaningless`,
      );
    }
  }
  const bareRps = median(bare.map((run) => run.requestsPerSecond));
  const fakeRps = median(fake.map((run) => run.requestsPerSecond));
  // Each round measures both targets back to back: the ratio within a round is the paired
  // figure, and its median over rounds is what drift on a shared machine moves least.
  const roundRatios = fake.map((run, i) => run.requestsPerSecond / (bare[i]?.requestsPerSecond ?? Number.NaN));
  return {
    name: "throughput",
    title: "Create throughput: fake vs bare polka JSON handler",
    figures: [
      {
        metric: "fake / bare requests per second (median of rounds)",
        value: round(median(roundRatios)),
        unit: "ratio",
        target: atLeast(0.7),
      },
      {
        metric: "fake / bare requests per second, lowest round",
        value: round(Math.min(...roundRatios)),
        unit: "ratio",
      },
      {
        metric: "fake / bare requests per second, highest round",
        value: round(Math.max(...roundRatios)),
        unit: "ratio",
      },
      { metric: "fake requests per second (median of rounds)", value: Math.round(fakeRps), unit: "req/s" },
      { metric: "bare requests per second (median of rounds)", value: Math.round(bareRps), unit: "req/s" },
      {
        metric: "server CPU per request, fake / bare",
        value: round(
          median(fake.map((run) => run.serverCpuPerRequestUs)) / median(bare.map((run) => run.serverCpuPerRequestUs)),
          2,
        ),
        unit: "ratio",
      },
      {
        metric: "fake server CPU per request (median of rounds)",
        value: round(median(fake.map((run) => run.serverCpuPerRequestUs)), 1),
        unit: "µs",
      },
      {
        metric: "bare server CPU per request (median of rounds)",
        value: round(median(bare.map((run) => run.serverCpuPerRequestUs)), 1),
        unit: "µs",
      },
      {
        metric: "fake latency p99 (median of rounds)",
        value: round(median(fake.map((run) => run.latencyP99Ms)), 2),
        unit: "ms",
      },
      {
        metric: "bare latency p99 (median of rounds)",
        value: round(median(bare.map((run) => run.latencyP99Ms)), 2),
        unit: "ms",
      },
    ],
    details: {
      ...config,
      distinctMessages: MESSAGE_COUNT,
      responseBytes: Buffer.byteLength(body),
      roundRatios,
      bare,
      fake,
    },
  };
}
