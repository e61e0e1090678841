/**
 * Section 2: does a page cost more in a big conversation? Page latency (first and last page,
 * page_size 50) in a conversation of 100 messages against one of 100,000, both seeded
 * through the fake's internal API. Requests go one at a time over one keep-alive connection,
 * interleaved across the four cases so that drift on a shared machine hits them alike.
 */

import { Client } from "undici";
import { MessagePage } from "../../schemas/index.ts";
import { atMost, type Section } from "./figures.ts";
import type { BenchSettings } from "./settings.ts";
import { median, percentile, round } from "./stats.ts";
import { startWorker } from "./worker.ts";

const AGENT = "agent-a";
const CHANNEL = "web"; // the channel of sk-fake-a in the fake's default keys
const KEY = "sk-fake-a";
const WARMUP_ROUNDS = 200;

interface Case {
  label: string;
  path: string;
  expectedItems: number;
  expectedTotal: number;
  samples: number[];
}

async function getPage(client: Client, path: string): Promise<{ status: number; text: string; ms: number }> {
  const started = performance.now();
  const response = await client.request({
    method: "GET",
    path,
    headers: { authorization: `Bearer ${KEY}`, accept: "application/json" },
  });
  const text = await response.body.text();
  return { status: response.statusCode, text, ms: performance.now() - started };
}

/** The page must be the one asked for; a benchmark of error answers would prove nothing. */
function verify(item: Case, status: number, text: string): void {
  const page = MessagePage.safeParse(status === 200 ? JSON.parse(text) : undefined);
  if (!page.success || page.data.items.length !== item.expectedItems || page.data.total !== item.expectedTotal) {
    throw new Error(`${item.label}: unexpected answer ${status} ${text.slice(0, 200)}`);
  }
}

export async function listingSection(settings: BenchSettings): Promise<Section> {
  const config = settings.listing;
  const worker = startWorker("targets/fake-target.ts");
  let client: Client | undefined;
  try {
    const { url } = await worker.call<{ url: string }>("start", { options: {} });
    const seed = (messages: number) =>
      worker.call<{ conversationId: string }>("seedConversation", { agentId: AGENT, channel: CHANNEL, messages });
    const small = await seed(config.smallMessages);
    const large = await seed(config.largeMessages);
    const pathOf = (id: string, page: number) =>
      `/v1/agents/${AGENT}/conversations/${id}/messages?page=${page}&page_size=${config.pageSize}`;
    const lastPage = (messages: number) => Math.ceil(messages / config.pageSize);
    const itemsOnLast = (messages: number) => messages - (lastPage(messages) - 1) * config.pageSize;
    const cases: Case[] = [
      {
        label: "small, first page",
        path: pathOf(small.conversationId, 1),
        expectedItems: config.pageSize,
        expectedTotal: config.smallMessages,
        samples: [],
      },
      {
        label: "small, last page",
        path: pathOf(small.conversationId, lastPage(config.smallMessages)),
        expectedItems: itemsOnLast(config.smallMessages),
        expectedTotal: config.smallMessages,
        samples: [],
      },
      {
        label: "large, first page",
        path: pathOf(large.conversationId, 1),
        expectedItems: config.pageSize,
        expectedTotal: config.largeMessages,
        samples: [],
      },
      {
        label: "large, last page",
        path: pathOf(large.conversationId, lastPage(config.largeMessages)),
        expectedItems: itemsOnLast(config.largeMessages),
        expectedTotal: config.largeMessages,
        samples: [],
      },
    ];
    client = new Client(url, { pipelining: 1 });
    for (let round = 0; round < WARMUP_ROUNDS + config.samples; round++) {
      // Rotate the order so that no case always follows the same neighbour.
      for (let i = 0; i < cases.length; i++) {
        const item = cases[(round + i) % cases.length];
        if (!item) continue;
        const { status, text, ms } = await getPage(client, item.path);
        if (round === 0) verify(item, status, text);
        else if (status !== 200) throw new Error(`${item.label}: status ${status}`);
        if (round >= WARMUP_ROUNDS) item.samples.push(ms);
      }
    }
    const [smallFirst, smallLast, largeFirst, largeLast] = cases.map((item) => item.samples);
    const p50 = (samples: number[] | undefined) => median(samples ?? []);
    const p99 = (samples: number[] | undefined) => percentile(samples ?? [], 99);
    return {
      name: "listing",
      title: `Page latency: ${config.largeMessages.toLocaleString("en-US")} vs ${config.smallMessages} messages`,
      figures: [
        {
          metric: "last page p50, large / small",
          value: round(p50(largeLast) / p50(smallLast)),
          unit: "ratio",
          target: atMost(1.5),
        },
        {
          metric: "first page p50, large / small",
          value: round(p50(largeFirst) / p50(smallFirst)),
          unit: "ratio",
          target: atMost(1.5),
        },
        { metric: "last page p99, large / small", value: round(p99(largeLast) / p99(smallLast)), unit: "ratio" },
        { metric: "last page p50, large", value: round(p50(largeLast)), unit: "ms" },
        { metric: "last page p50, small", value: round(p50(smallLast)), unit: "ms" },
      ],
      details: {
        ...config,
        cases: cases.map((item) => ({
          label: item.label,
          path: item.path.replace(/conversations\/[^/]+/, "conversations/{id}"),
          p50Ms: round(p50(item.samples)),
          p90Ms: round(percentile(item.samples, 90)),
          p99Ms: round(p99(item.samples)),
        })),
      },
    };
  } finally {
    await client?.close();
    await worker.stop();
  }
}
