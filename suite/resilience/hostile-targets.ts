/**
 * Local servers that misbehave in one way each, for running the whole conformance suite
 * against them. Each echoes the request's Authorization header somewhere in what it sends,
 * so that a key which reaches any output unredacted would be seen. Where a target is hostile
 * only on some endpoints, the others answer plausibly (a fresh conversation for a create,
 * 404 conversation_not_found for a listing or delete), so that the run gets past its
 * preflight and meets the hostility inside the checks.
 */

import { randomUUID } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import { serveHttp, writeFlood, writeParts, type Register } from "../harness/local-servers.ts";

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

function plausible(req: IncomingMessage, res: ServerResponse): void {
  const endpoint = endpointOf(req);
  if (endpoint === "create") {
    res.writeHead(200, { "content-type": "application/json" });
    res.end(JSON.stringify({ conversation_id: randomUUID(), response: `you sent ${echo(req)}`, citations: [] }));
    return;
  }
  res.writeHead(404, { "content-type": "application/json" });
  res.end(JSON.stringify({ error: { code: "conversation_not_found", message: `not for ${echo(req)}` } }));
}

/** Keeps calling `tick` every `everyMs` until the client goes away. */
function whileOpen(res: ServerResponse, everyMs: number, tick: () => void): void {
  const timer = setInterval(() => (res.destroyed ? clearInterval(timer) : tick()), everyMs);
  res.on("close", () => clearInterval(timer));
}

const MiB = 1024 * 1024;

export interface HostileTarget {
  name: string;
  /** What the run should conclude: 1 the target does not conform, 2 the run could not start (unreachable, or not this API). */
  exitCode: 1 | 2;
  /** What a failed requirement's reason (exit 1) or the error output (exit 2) must say. */
  evidence: RegExp;
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
    start: (register) =>
      serveHttp((req, res) => {
        if (endpointOf(req) !== "stream") return plausible(req, res);
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
      serveHttp(async (req, res) => {
        if (endpointOf(req) !== "stream") return plausible(req, res);
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
      serveHttp(async (req, res) => {
        const endpoint = endpointOf(req);
        if (endpoint !== "create" && endpoint !== "stream") return plausible(req, res);
        // No Content-Length: the client only learns the size by reading.
        res.writeHead(200, { "content-type": endpoint === "stream" ? "text/event-stream" : "application/json" });
        const line = endpoint === "stream"
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
      serveHttp(async (req, res) => {
        const endpoint = endpointOf(req);
        if (endpoint !== "create" && endpoint !== "stream") return plausible(req, res);
        const whole = endpoint === "stream"
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
    evidence: /answers with an HTML page, not this API: is --base-url \(CONFORMANCE_BASE_URL\) the service's base URL\?/,
    start: (register) =>
      serveHttp((req, res) => {
        res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
        res.end(`<!doctype html><html><body><h1>Welcome</h1><p>Signed in as ${echo(req)}</p></body></html>`);
      }, register),
  },
];
