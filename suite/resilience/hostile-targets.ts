/**
 * Local servers that misbehave in one way each, for running the whole conformance suite
 * against them. Each echoes the request's Authorization header somewhere in what it sends,
 * so that a key which reaches any output unredacted would be seen. Where a target is hostile
 * only on some endpoints, the others answer plausibly (a create starts or continues a
 * conversation it then lists; an unknown one is 404 conversation_not_found), so that the run
 * gets past its preflight and its shared conversations and meets the hostility inside the checks.
 */

import { randomUUID } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import { serveHttp, writeFlood, writeParts, type Register } from "../test-support/local-servers.ts";

export type Endpoint = "create" | "stream" | "list" | "delete" | "other";

export function endpointOf(req: IncomingMessage): Endpoint {
  const path = (req.url ?? "").split("?")[0] ?? "";
  if (req.method === "POST" && path.endsWith("/responses/stream")) return "stream";
  if (req.method === "POST" && path.endsWith("/responses")) return "create";
  if (req.method === "GET" && path.endsWith("/messages")) return "list";
  if (req.method === "DELETE" && /\/conversations\/[^/]+$/.test(path)) return "delete";
  return "other";
}

const echo = (req: IncomingMessage) => String(req.headers.authorization ?? "");

/** Messages per conversation a plausible endpoint created (two per exchange), per server port. */
const conversations = new Map<number, Map<string, number>>();

function conversationsOf(req: IncomingMessage): Map<string, number> {
  const port = req.socket.localPort ?? 0;
  let known = conversations.get(port);
  if (known === undefined) conversations.set(port, (known = new Map()));
  return known;
}

/** The key the hostile-target tests use: a plausible endpoint refuses any other (AUTH-1). */
const KEY_PREFIX = "Bearer sk-hostile-";

/** Answers 401 to a request without the tests' key, as every endpoint of these targets does; true when it did. */
function refused(req: IncomingMessage, res: ServerResponse): boolean {
  if (echo(req).startsWith(KEY_PREFIX)) return false;
  res.writeHead(401, { "content-type": "application/json", "www-authenticate": "Bearer" });
  res.end(JSON.stringify({ error: { code: "unauthorized", message: "a valid key is required" } }));
  return true;
}

function plausible(req: IncomingMessage, res: ServerResponse, body: string): void {
  if (refused(req, res)) return;
  const endpoint = endpointOf(req);
  const known = conversationsOf(req);
  const json = (status: number, answer: unknown) => {
    res.writeHead(status, { "content-type": "application/json" });
    res.end(JSON.stringify(answer));
  };
  if (endpoint === "create") {
    let asked: unknown;
    try {
      asked = (JSON.parse(body) as { conversation_id?: unknown }).conversation_id;
    } catch {
      asked = undefined;
    }
    const id = typeof asked === "string" && known.has(asked) ? asked : randomUUID();
    known.set(id, (known.get(id) ?? 0) + 2);
    return json(200, { conversation_id: id, response: `you sent ${echo(req)}`, citations: [] });
  }
  const id = /\/conversations\/([^/?]+)/.exec(req.url ?? "")?.[1] ?? "";
  const total = known.get(id);
  if (endpoint === "list" && total !== undefined) {
    const url = new URL(req.url ?? "/", "http://target");
    const page = Number(url.searchParams.get("page") ?? "1");
    const size = Number(url.searchParams.get("page_size") ?? "50");
    if (!Number.isInteger(page) || page < 1 || !Number.isInteger(size) || size < 1 || size > 100) {
      return json(400, { error: { code: "invalid_pagination", message: `bad page for ${echo(req)}` } });
    }
    const items = Array.from({ length: total }, (_, i) => ({
      id: `${id}-${i}`,
      role: i % 2 === 0 ? "user" : "assistant",
      content: "…",
    }));
    const now = "2026-01-01T00:00:00.000Z";
    return json(200, {
      conversation: { id, created_at: now, updated_at: now },
      items: items.slice((page - 1) * size, page * size),
      page,
      page_size: size,
      total,
      has_more: page * size < total,
    });
  }
  if (endpoint === "delete" && total !== undefined) {
    known.delete(id);
    res.writeHead(204).end();
    return;
  }
  json(404, { error: { code: "conversation_not_found", message: `not for ${echo(req)}` } });
}

/** Keeps calling `tick` every `everyMs` until the client goes away. */
function whileOpen(res: ServerResponse, everyMs: number, tick: () => void): void {
  const timer = setInterval(() => (res.destroyed ? clearInterval(timer) : tick()), everyMs);
  res.on("close", () => clearInterval(timer));
}

const MiB = 1024 * 1024;

export interface HostileTarget {
  name: string;
  /**
   * What the run should conclude: 1 the target does not conform, 2 the run could not start
   * (unreachable, or not this API), 3 it never let some MUST finish (and nothing failed).
   */
  exitCode: 1 | 2 | 3;
  /** What a failed or inconclusive requirement's reason, or the error output (exit 2), must say. */
  evidence: RegExp;
  /** Limits of its own, after the shared ones: only where no sane answer of this target could miss them. */
  flags?: readonly string[];
  start(register: Register): Promise<{ url: string }>;
}

export const HOSTILE_TARGETS: readonly HostileTarget[] = [
  {
    name: "accepts connections and never answers",
    exitCode: 2,
    evidence: /did not answer a first request/,
    start: (register) => serveHttp(() => undefined, register),
  },
  {
    name: "never ends its streams (a created event, then keep-alive comments forever)",
    exitCode: 1,
    evidence: /total-timeout: the stream did not finish within/,
    // Its streams never end, so each waits the whole stream timeout, and the listing after each
    // the whole settle window (the exchange is never stored): short ones keep the run short.
    flags: ["--stream-timeout", "600", "--settle-ms", "500"],
    start: (register) =>
      serveHttp((req, res, body) => {
        if (endpointOf(req) !== "stream") return plausible(req, res, body);
        if (refused(req, res)) return;
        res.writeHead(200, { "content-type": "text/event-stream" });
        res.write(`event: response.created\ndata: {"type":"response.created","note":${JSON.stringify(echo(req))}}\n\n`);
        whileOpen(res, 100, () => res.write(`: still here for ${echo(req)}\n\n`));
      }, register),
  },
  {
    name: "streams garbage (binary bytes, broken JSON, a 100 kB line, invalid UTF-8)",
    exitCode: 1,
    evidence: /has data that is not JSON/,
    start: (register) =>
      serveHttp(async (req, res, body) => {
        if (endpointOf(req) !== "stream") return plausible(req, res, body);
        if (refused(req, res)) return;
        res.writeHead(200, { "content-type": "text/event-stream" });
        await writeParts(res, [
          Buffer.from([0x00, 0xff, 0xfe, 0x0d, 0x0a, 0xc3, 0x28, 0xe2, 0x82]),
          `event: response.created\ndata: {"type":"response.created",\n\n`,
          `event: response.output_text.delta\ndata: ${"x".repeat(100_000)}\n\n`,
          `data: ${JSON.stringify({ type: "response.completed", echo: echo(req) })}\n\n`,
          Buffer.from([0xf0, 0x9f, 0x98]),
          "\r\r\n\n:\n",
        ]);
        res.end();
      }, register),
  },
  {
    name: "sends 50 MB bodies to creates and streams",
    exitCode: 1,
    evidence: /passed the cap of \d+ bytes/,
    start: (register) =>
      serveHttp(async (req, res, body) => {
        const endpoint = endpointOf(req);
        if (endpoint !== "create" && endpoint !== "stream") return plausible(req, res, body);
        if (refused(req, res)) return;
        // No Content-Length: the client only learns the size by reading.
        res.writeHead(200, { "content-type": endpoint === "stream" ? "text/event-stream" : "application/json" });
        const line =
          endpoint === "stream"
            ? `data: {"type":"response.output_text.delta","delta":${JSON.stringify(echo(req))}}\n\n`
            : `{"echo":${JSON.stringify(echo(req))}},`;
        await writeFlood(res, Buffer.from(line.repeat(Math.ceil((64 * 1024) / line.length))), 50 * MiB);
      }, register),
  },
  {
    name: "closes the connection in the middle of every create and stream body",
    exitCode: 1,
    evidence: /connection-reset|the stream broke/,
    start: (register) =>
      serveHttp(async (req, res, body) => {
        const endpoint = endpointOf(req);
        if (endpoint !== "create" && endpoint !== "stream") return plausible(req, res, body);
        if (refused(req, res)) return;
        const whole =
          endpoint === "stream"
            ? `event: response.created\ndata: {"type":"response.created","echo":${JSON.stringify(echo(req))}}\n\n`
            : JSON.stringify({ conversation_id: randomUUID(), response: echo(req), citations: [] });
        res.writeHead(200, {
          "content-type": endpoint === "stream" ? "text/event-stream" : "application/json",
          ...(endpoint === "create" ? { "content-length": String(Buffer.byteLength(whole) * 2) } : {}),
        });
        await writeParts(res, [whole.slice(0, Math.floor(whole.length / 2))]);
        res.socket?.destroy();
      }, register),
  },
  {
    name: "answers an HTML page to every request",
    exitCode: 2,
    evidence:
      /answers with an HTML page, not this API: is --base-url \(CONFORMANCE_BASE_URL\) the service's base URL\?/,
    start: (register) =>
      serveHttp((req, res, body) => {
        res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
        res.end(`<!doctype html><html><body><h1>Welcome</h1><p>Signed in as ${echo(req)}</p></body></html>`);
      }, register),
  },
];
