/**
 * `--record-fixtures DIR`: each conversation the traffic showed, written in the fake's fixture
 * format (the body of POST /__fake/conversations), so a client team can replay
 * production-like conversations on the fake. A conversation whose every page was listed is
 * written as listed (ids and times included); otherwise as its observed exchanges. Deleted
 * conversations are not written, and neither is any key: the fake gives the conversation to
 * the first of its keys that grants the agent (or name a channel in the file).
 */
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { EVENT, Uuid } from "../../../schemas/index.ts";
import { tryParseJson } from "../../http/response-body.ts";
import { classify } from "../classify.ts";
import type { ObservedExchange } from "../exchange.ts";
import { SseBody } from "../../http/sse-body.ts";

interface FixtureMessage {
  id?: string;
  role: string;
  content: string;
  citations?: unknown[];
  created_at?: string;
}

interface Recorded {
  agent: string;
  /** From creates and streams, in the order they finished. */
  exchanged: FixtureMessage[];
  /** From listing pages: position → message, and the total they gave. */
  listed: Map<number, FixtureMessage>;
  total: number | undefined;
  deleted: boolean;
}

const MAX_CONVERSATIONS = 10_000;

function timestamp(value: unknown): string | undefined {
  if (typeof value === "number" && Number.isFinite(value)) return new Date(value * 1000).toISOString();
  if (typeof value === "string" && !Number.isNaN(Date.parse(value))) return new Date(Date.parse(value)).toISOString();
  return undefined;
}

function listedMessage(item: unknown): FixtureMessage | undefined {
  const { id, role, content, citations, created_at } = (item ?? {}) as Record<string, unknown>;
  if ((role !== "user" && role !== "assistant") || typeof content !== "string") return undefined;
  const message: FixtureMessage = { role, content };
  if (Uuid.safeParse(id).success) message.id = String(id);
  if (role === "assistant")
    message.citations = Array.isArray(citations) ? citations.filter((c) => typeof c === "object" && c !== null) : [];
  const at = timestamp(created_at);
  if (at !== undefined) message.created_at = at;
  return message;
}

/** The answer text and citations of a create or a stream, and its conversation. */
function answerOf(
  exchange: ObservedExchange,
  stream: boolean,
): { id: string; text: string; citations: unknown[] } | undefined {
  const body = exchange.response?.body ?? "";
  let result: unknown;
  if (stream) {
    const sse = new SseBody({ elapsed: () => 0, maxBufferSize: 16 * 1024 * 1024 });
    sse.feed(body, 0);
    result = (sse.events.find((e) => e.event === EVENT.completed)?.json as { response?: unknown } | undefined)
      ?.response;
  } else {
    result = tryParseJson(body);
  }
  const { conversation_id, response, output_text, citations } = (result ?? {}) as Record<string, unknown>;
  const text = typeof response === "string" ? response : output_text;
  if (!Uuid.safeParse(conversation_id).success || typeof text !== "string") return undefined;
  return { id: String(conversation_id).toLowerCase(), text, citations: Array.isArray(citations) ? citations : [] };
}

export class FixtureRecorder {
  private readonly conversations = new Map<string, Recorded>();

  private recorded(id: string, agent: string): Recorded | undefined {
    let conversation = this.conversations.get(id);
    if (conversation === undefined && this.conversations.size < MAX_CONVERSATIONS) {
      conversation = { agent, exchanged: [], listed: new Map(), total: undefined, deleted: false };
      this.conversations.set(id, conversation);
    }
    return conversation;
  }

  observe(exchange: ObservedExchange): void {
    const c = classify(exchange);
    const status = exchange.response?.status ?? 0;
    if (c === undefined || status < 200 || status >= 300) return;
    if (c.operation === "create" || c.operation === "stream") {
      const answer = answerOf(exchange, c.operation === "stream");
      const message = (c.body as { message?: unknown } | undefined)?.message;
      if (answer === undefined || typeof message !== "string") return;
      this.recorded(answer.id, c.agent)?.exchanged.push(
        { role: "user", content: message },
        { role: "assistant", content: answer.text, citations: answer.citations },
      );
    } else if (c.operation === "list" && c.conversationId !== undefined) {
      const page = tryParseJson(exchange.response?.body ?? "") as
        { items?: unknown; page?: unknown; page_size?: unknown; total?: unknown } | undefined;
      if (
        !Array.isArray(page?.items) ||
        typeof page.page !== "number" ||
        typeof page.page_size !== "number" ||
        typeof page.total !== "number"
      )
        return;
      const recorded = this.recorded(c.conversationId, c.agent);
      if (recorded === undefined) return;
      if (recorded.total !== page.total) recorded.listed.clear();
      recorded.total = page.total;
      const offset = (page.page - 1) * page.page_size;
      page.items.forEach((item, index) => {
        const message = listedMessage(item);
        if (message !== undefined) recorded.listed.set(offset + index, message);
      });
    } else if (c.operation === "delete" && c.conversationId !== undefined) {
      const recorded = this.conversations.get(c.conversationId);
      if (recorded !== undefined) recorded.deleted = true;
    }
  }

  /** Writes one file per conversation still alive; returns how many. */
  async write(dir: string): Promise<number> {
    await mkdir(dir, { recursive: true });
    let written = 0;
    for (const [id, recorded] of this.conversations) {
      if (recorded.deleted) continue;
      const whole = recorded.total !== undefined && recorded.listed.size === recorded.total;
      const messages = whole
        ? [...recorded.listed.entries()].sort(([a], [b]) => a - b).map(([, message]) => message)
        : recorded.exchanged;
      if (messages.length === 0) continue;
      await writeFile(join(dir, `${id}.json`), `${JSON.stringify({ agent: recorded.agent, id, messages }, null, 2)}\n`);
      written++;
    }
    return written;
  }
}
