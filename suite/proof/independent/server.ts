/**
 * A second, independent implementation of the service, written on bare node:http and sharing
 * no code with the reference fake, so that the suite is also proven against choices the fake's
 * variants did not think of: 201 on create, newest-first listings, items with other field
 * names, RFC 9457 and flat error bodies side by side, 422 for validation, whole-second
 * timestamps with an offset, a `response.created` payload of its own, `id:`/`retry:` lines,
 * comments, CRLF, a case-mixed Content-Type, idempotency scoped per operation, page_size
 * clamped, delete 200 with a body. `defect` breaks one requirement, for the same proof.
 */
import { createHash, randomUUID } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

export const DEFECTS = {
  "has-more-at-exact-end": "LIST-5",
  "total-counts-every-conversation": "LIST-7",
  "conflict-replays": "IDEM-3",
  "delete-404-code": "DEL-2",
  "channels-not-isolated": "SCOPE-3",
  "stream-without-terminal": "SSE-3",
} as const;
export type Defect = keyof typeof DEFECTS;

export const IDENTITIES = {
  apiKey: "ind-key-chat",
  agentId: "alpha",
  otherAgentId: "beta",
  otherApiKey: "ind-key-voice",
} as const;

interface Grant {
  agents: readonly string[];
  channel: string;
}
interface Conversation {
  id: string;
  agent: string;
  channel: string;
  created: string;
  updated: string;
  messages: object[];
}
interface Record {
  hash: string;
  pending: boolean;
  result?: { conversation_id: string; response: string; citations: object[] };
}

const GRANTS = new Map<string, Grant>([
  [IDENTITIES.apiKey, { agents: [IDENTITIES.agentId, IDENTITIES.otherAgentId], channel: "chat" }],
  [IDENTITIES.otherApiKey, { agents: [IDENTITIES.agentId], channel: "voice" }],
]);
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const ROUTE = /^\/v1\/agents\/([^/]+)\/(?:(responses(?:\/stream)?)|conversations\/([^/]+)(\/messages)?)$/;

const wholeSecond = () => new Date(Math.floor(Date.now() / 1000) * 1000).toISOString().replace(".000Z", "+00:00");
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(",")}]`;
  if (value !== null && typeof value === "object") {
    const entries = Object.entries(value).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(",")}}`;
  }
  return JSON.stringify(value);
}

function send(res: ServerResponse, status: number, body: unknown, headers: { [name: string]: string } = {}): void {
  res.writeHead(status, { "content-type": "application/json; charset=utf-8", ...headers }).end(JSON.stringify(body));
}
const problem = (res: ServerResponse, status: number, code: string) =>
  send(res, status, { type: `https://errors.example.test/${code}`, title: code.replace(/_/g, " "), status }, {});
const flat = (res: ServerResponse, status: number, code: string) =>
  send(res, status, { code, message: code, request_id: randomUUID() });

async function readBody(req: IncomingMessage): Promise<string> {
  const parts: Buffer[] = [];
  for await (const part of req) parts.push(part as Buffer);
  return Buffer.concat(parts).toString("utf8");
}

export async function startIndependentServer(defect?: Defect): Promise<{ url: string; close(): Promise<void> }> {
  const conversations = new Map<string, Conversation>();
  const records = new Map<string, Record>();

  async function playStream(res: ServerResponse, result: NonNullable<Record["result"]>): Promise<void> {
    res.writeHead(200, { "content-type": "Text/Event-Stream;charset=UTF-8", "cache-control": "no-store" });
    let n = 0;
    const event = (name: string, data: unknown) =>
      res.write(`id: ${++n}\r\nevent: ${name}\r\ndata: ${JSON.stringify(data)}\r\n\r\n`);
    res.write(": hello\r\nretry: 1500\r\n\r\n");
    event("response.created", {
      type: "response.created",
      response: { id: `resp_${randomUUID()}`, status: "in_progress" },
    });
    const chars = [...result.response];
    for (let i = 0; i < chars.length; i += 9) {
      await pause(2);
      event("response.output_text.delta", {
        type: "response.output_text.delta",
        delta: chars.slice(i, i + 9).join(""),
        index: i,
      });
      if (i % 27 === 0) res.write(": keep-alive\r\n\r\n");
    }
    if (defect === "stream-without-terminal") return void res.end();
    event("response.completed", {
      type: "response.completed",
      response: { ...result, output_text: result.response, response: undefined, status: "completed" },
    });
    res.end();
  }

  const server = createServer(async (req, res) => {
    const url = new URL(req.url ?? "/", "http://localhost");
    const route = ROUTE.exec(url.pathname);
    if (!route) return flat(res, 404, "route_not_found");
    const auth = req.headers.authorization ?? "";
    const apiKey = auth.startsWith("Bearer ") ? auth.slice(7) : "";
    const grant = GRANTS.get(apiKey);
    if (!grant)
      return send(
        res,
        401,
        { error: { code: "unauthenticated", message: "a valid bearer key is required" } },
        { "www-authenticate": 'Bearer realm="agents"' },
      );
    const agent = decodeURIComponent(route[1] ?? "");
    const reaches = (c: Conversation | undefined): c is Conversation =>
      c !== undefined &&
      c.agent === agent &&
      grant.agents.includes(agent) &&
      (defect === "channels-not-isolated" || c.channel === grant.channel);

    if (route[3] !== undefined) {
      const id = decodeURIComponent(route[3]).toLowerCase();
      const conversation = conversations.get(id);
      if (route[4] !== undefined && req.method === "GET") {
        if (!reaches(conversation)) return problem(res, 404, "conversation_not_found");
        const pageText = url.searchParams.get("page") ?? "1";
        const sizeText = url.searchParams.get("page_size") ?? "50";
        if (!/^\d+$/.test(pageText) || !/^\d+$/.test(sizeText) || Number(pageText) < 1 || Number(sizeText) < 1) {
          return problem(res, 422, "invalid_pagination");
        }
        const page = Number(pageText);
        const size = Math.min(100, Number(sizeText));
        const newestFirst = [...conversation.messages].reverse();
        const total =
          defect === "total-counts-every-conversation"
            ? [...conversations.values()].reduce((sum, c) => sum + c.messages.length, 0)
            : conversation.messages.length;
        const hasMore = defect === "has-more-at-exact-end" ? page * size <= total : page * size < total;
        return send(res, 200, {
          object: "list",
          conversation: { id, created_at: conversation.created, updated_at: conversation.updated, agent },
          items: newestFirst.slice((page - 1) * size, page * size),
          page,
          page_size: size,
          total,
          has_more: hasMore,
        });
      }
      if (route[4] === undefined && req.method === "DELETE") {
        if (!reaches(conversation))
          return problem(res, 404, defect === "delete-404-code" ? "not_found" : "conversation_not_found");
        conversations.delete(id);
        return send(res, 200, { id, deleted: true });
      }
      return flat(res, 405, "method_not_allowed");
    }

    if (req.method !== "POST") return flat(res, 405, "method_not_allowed");
    const stream = route[2] === "responses/stream";
    let body: { message?: unknown; conversation_id?: unknown; metadata?: unknown };
    try {
      body = JSON.parse(await readBody(req));
    } catch {
      return problem(res, 400, "malformed_json");
    }
    if (body === null || typeof body !== "object" || Array.isArray(body) || typeof body.message !== "string")
      return problem(res, 422, "validation_failed");
    if (
      body.metadata !== undefined &&
      (typeof body.metadata !== "object" || body.metadata === null || Array.isArray(body.metadata))
    )
      return problem(res, 422, "validation_failed");
    const continued = body.conversation_id;
    if (continued != null && (typeof continued !== "string" || !UUID.test(continued)))
      return problem(res, 422, "validation_failed");
    const key = req.headers["idempotency-key"];
    if (typeof key !== "string" || key === "") return problem(res, 400, "idempotency_key_required");
    if (!grant.agents.includes(agent)) return problem(res, 404, "agent_not_found");

    const scope = `${apiKey}\n${agent}\n${stream ? "stream" : "plain"}\n${key}`;
    const hash = createHash("sha256").update(canonical(body)).digest("hex");
    const seen = records.get(scope);
    if (seen !== undefined) {
      if (seen.hash !== hash && defect !== "conflict-replays") return flat(res, 409, "idempotency_conflict");
      if (seen.pending || seen.result === undefined) return flat(res, 409, "request_in_progress");
      return stream ? playStream(res, seen.result) : send(res, 201, seen.result);
    }
    let conversation: Conversation | undefined;
    if (typeof continued === "string") {
      conversation = conversations.get(continued.toLowerCase());
      if (!reaches(conversation)) return problem(res, 404, "conversation_not_found");
    }
    const record: Record = { hash, pending: true };
    records.set(scope, record);
    if (conversation === undefined) {
      const id = randomUUID();
      conversation = {
        id,
        agent,
        channel: grant.channel,
        created: wholeSecond(),
        updated: wholeSecond(),
        messages: [],
      };
      conversations.set(id, conversation);
    }
    await pause(5);
    const text = `Thanks for asking about ${JSON.stringify(body.message.slice(0, 20))} — here is what I know 🙂`;
    const citations = [{ source: "kb", ref: body.message.length % 7 }];
    conversation.messages.push({ message_id: randomUUID(), author: "user", text: body.message, ts: wholeSecond() });
    conversation.messages.push({ message_id: randomUUID(), author: "assistant", text, citations, ts: wholeSecond() });
    conversation.updated = wholeSecond();
    record.result = { conversation_id: conversation.id, response: text, citations };
    record.pending = false;
    return stream ? playStream(res, record.result) : send(res, 201, { ...record.result, usage: { tokens: 12 } });
  });

  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}
