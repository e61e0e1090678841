/**
 * The proxy's forwarding, against small hand-made upstreams: bytes pass as they come (an event
 * written upstream reaches the client before the next is written), no header is added, a
 * client that hangs up cancels the upstream request, an upstream that breaks mid-body breaks
 * the client's body too, an unreachable upstream is a 502 that judges nothing, and a coded
 * (compressed) answer is forwarded as it came but judged decoded.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { Readable } from "node:stream";
import zlib from "node:zlib";
import { Pool, request } from "undici";
import { expect, onTestFinished, test } from "vitest";
import type { ObservedExchange } from "../exchange.ts";
import { acceptConnectTunnels } from "../../../test-support/connect-tunnel.ts";
import { startProxy } from "./server.ts";

async function upstream(handler: (req: IncomingMessage, res: ServerResponse) => void): Promise<string> {
  const server = createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  onTestFinished(
    () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  );
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

async function proxyTo(target: string): Promise<{ url: string; exchanges: ObservedExchange[] }> {
  const exchanges: ObservedExchange[] = [];
  const proxy = await startProxy({
    upstream: target,
    host: "127.0.0.1",
    port: 0,
    onExchange: (e) => exchanges.push(e),
  });
  onTestFinished(() => proxy.close(100));
  return { url: proxy.url, exchanges };
}

const until = async (condition: () => boolean, what: string) => {
  const deadline = Date.now() + 5_000;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
};

test("each event reaches the client before the upstream writes the next, under the upstream's base path", async () => {
  let release: () => void = () => undefined;
  const second = new Promise<void>((resolve) => (release = resolve));
  const target = await upstream((req, res) => {
    expect(req.url).toBe("/base/v1/agents/a/responses/stream?x=1");
    // No Date from the upstream: any Date the client sees would be the proxy's own.
    res.sendDate = false;
    res.writeHead(200, { "content-type": "text/event-stream", "x-upstream": "yes" });
    res.write("event: one\ndata: {}\n\n");
    void second.then(() => res.end("event: two\ndata: {}\n\n"));
  });
  const { url, exchanges } = await proxyTo(`${target}/base`);
  const response = await request(`${url}/v1/agents/a/responses/stream?x=1`, { method: "POST", body: "{}" });
  expect(response.headers["x-upstream"]).toBe("yes");
  expect(response.headers["date"]).toBeUndefined();
  const reader = (response.body as AsyncIterable<Buffer>)[Symbol.asyncIterator]();
  expect(String((await reader.next()).value)).toBe("event: one\ndata: {}\n\n");
  release();
  expect(String((await reader.next()).value)).toBe("event: two\ndata: {}\n\n");
  await until(() => exchanges.length === 1, "the exchange");
  expect(exchanges[0]?.response).toMatchObject({
    status: 200,
    complete: true,
    body: "event: one\ndata: {}\n\nevent: two\ndata: {}\n\n",
  });
  expect(exchanges[0]?.response?.chunks?.length).toBe(2);
});

test("a client that hangs up cancels the upstream request; the exchange says so", async () => {
  let upstreamClosed = false;
  const target = await upstream((_req, res) => {
    res.writeHead(200, { "content-type": "text/event-stream" });
    res.write("event: one\ndata: {}\n\n");
    res.on("close", () => (upstreamClosed = true));
  });
  const { url, exchanges } = await proxyTo(target);
  const controller = new AbortController();
  const response = await request(`${url}/v1/agents/a/responses/stream`, {
    method: "POST",
    body: "{}",
    signal: controller.signal,
  });
  const reader = (response.body as AsyncIterable<Buffer>)[Symbol.asyncIterator]();
  await reader.next();
  controller.abort();
  await until(() => upstreamClosed, "the upstream request to close");
  await until(() => exchanges.length === 1, "the exchange");
  expect(exchanges[0]?.failure).toBe("the client hung up");
  expect(exchanges[0]?.response?.complete).toBe(false);
});

test("a client that hangs up and at once sends its retry on another open connection: the exchange it left ended before the retry began", async () => {
  const target = await upstream((req, res) => {
    res.writeHead(200, { "content-type": "text/event-stream" });
    res.write("event: one\ndata: {}\n\n");
    // The first request streams on; the retry is answered at once.
    if (req.url?.endsWith("retry")) res.end();
  });
  const { url, exchanges } = await proxyTo(target);
  const pool = new Pool(url, { connections: 4 });
  onTestFinished(() => pool.destroy());
  const retry = async () =>
    (await pool.request({ path: "/v1/agents/a/responses/stream?retry", method: "POST", body: "{}" })).body.text();
  // Connections open and idle, as a client's pool keeps them: the retry goes out on one at once.
  await Promise.all([retry(), retry(), retry()]);
  // Several times: which of the two the proxy's loop reads first is a matter of chance.
  const TRIES = 20;
  for (let i = 0; i < TRIES; i++) {
    const controller = new AbortController();
    const response = await pool.request({
      path: "/v1/agents/a/responses/stream",
      method: "POST",
      body: "{}",
      signal: controller.signal,
    });
    await (response.body as AsyncIterable<Buffer>)[Symbol.asyncIterator]().next();
    controller.abort();
    await retry();
  }
  await until(() => exchanges.length === 3 + 2 * TRIES, "the exchanges");
  const bySequence = [...exchanges].sort((a, b) => a.sequence - b.sequence).slice(3);
  const overlapping: number[] = [];
  for (let i = 0; i < TRIES; i++) {
    const [left, again] = [bySequence[2 * i], bySequence[2 * i + 1]] as [ObservedExchange, ObservedExchange];
    expect(left.failure).toBe("the client hung up");
    // As the judge reads whole-millisecond starts: an end is the earliest it may have been (model-ops.ts).
    if (left.startedAt + left.durationMs - 1 > again.startedAt) overlapping.push(i);
  }
  expect(overlapping).toEqual([]);
});

test("the stop cuts what still runs and hands each exchange over, marked incomplete, with what had arrived, before close returns", async () => {
  const target = await upstream((req, res) => {
    // A stream that never ends, and a create that never answers.
    if (req.url?.endsWith("/stream")) {
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.write("event: one\ndata: {}\n\n");
    }
  });
  const exchanges: ObservedExchange[] = [];
  const proxy = await startProxy({
    upstream: target,
    host: "127.0.0.1",
    port: 0,
    onExchange: (e) => exchanges.push(e),
  });
  const streaming = await request(`${proxy.url}/v1/agents/a/responses/stream`, { method: "POST", body: "{}" });
  const reader = (streaming.body as AsyncIterable<Buffer>)[Symbol.asyncIterator]();
  await reader.next();
  const waiting = request(`${proxy.url}/v1/agents/a/responses`, { method: "POST", body: '{"message":"hi"}' }).catch(
    (error: unknown) => error,
  );
  await new Promise((resolve) => setTimeout(resolve, 50));
  await proxy.close(100);
  // Nothing is handed over on a later turn: close() returned with every exchange in hand.
  const byPath = (path: string) => exchanges.find((e) => e.request.url.endsWith(path));
  const stopped = "the proxy stopped before the exchange ended";
  expect(exchanges).toHaveLength(2);
  expect(byPath("/responses/stream")).toMatchObject({
    incomplete: true,
    failure: stopped,
    response: { status: 200, complete: false, body: "event: one\ndata: {}\n\n" },
  });
  expect(byPath("/responses")).toMatchObject({ incomplete: true, failure: stopped, response: undefined });
  expect(byPath("/responses/stream")?.waitMs).toBeLessThan(byPath("/responses/stream")?.durationMs ?? 0);
  await waiting;
});

test("an upstream that breaks mid-body breaks the client's body too", async () => {
  const target = await upstream((_req, res) => {
    res.writeHead(200, { "content-type": "text/event-stream" });
    res.write("event: one\ndata: {}\n\n");
    setTimeout(() => res.destroy(), 20);
  });
  const { url, exchanges } = await proxyTo(target);
  const response = await request(`${url}/v1/agents/a/responses/stream`, { method: "POST", body: "{}" });
  await expect(response.body.text()).rejects.toThrow();
  await until(() => exchanges.length === 1, "the exchange");
  expect(exchanges[0]?.failure).toMatch(/^the upstream connection broke/);
});

test("an unreachable upstream is a 502 with a JSON body, and the exchange carries no response to judge", async () => {
  const { url, exchanges } = await proxyTo("http://127.0.0.1:1");
  const response = await request(`${url}/v1/agents/a/responses`, { method: "POST", body: "{}" });
  expect(response.statusCode).toBe(502);
  expect(((await response.body.json()) as { error: { code: string } }).error.code).toBe("upstream_unreachable");
  await until(() => exchanges.length === 1, "the exchange");
  expect(exchanges[0]?.response).toBeUndefined();
});

test("a coded answer reaches the client byte for byte; the copy is decoded, and a coding it cannot read leaves the body unknown", async () => {
  const json = Buffer.from('{"conversation_id":"x","response":"Grüße","citations":[]}');
  const gzipped = zlib.gzipSync(json);
  const target = await upstream((req, res) => {
    const coding = req.url?.endsWith("zstd") ? "zstd-like" : "gzip";
    res.writeHead(200, { "content-type": "application/json", "content-encoding": coding });
    res.end(gzipped);
  });
  const { url, exchanges } = await proxyTo(target);
  for (const path of ["/v1/agents/a/responses", "/v1/agents/a/responses?zstd"]) {
    const response = await request(`${url}${path}`, { method: "POST", body: "{}" });
    expect(Buffer.from(await response.body.arrayBuffer())).toEqual(gzipped);
  }
  await until(() => exchanges.length === 2, "the exchanges");
  expect(exchanges[0]?.response).toMatchObject({ body: json.toString("utf8"), chunks: undefined, complete: true });
  expect(exchanges[1]?.response).toMatchObject({ body: undefined, complete: true });
  expect(exchanges[1]?.failure).toBeUndefined();
});

test("a request body is streamed upstream as it arrives; one past the copy's size reaches the upstream whole and is not judged", async () => {
  let received = 0;
  let sawFirstPiece: () => void = () => undefined;
  const firstPiece = new Promise<void>((resolve) => (sawFirstPiece = resolve));
  const target = await upstream((req, res) => {
    req.on("data", (chunk: Buffer) => {
      received += chunk.length;
      sawFirstPiece();
    });
    req.on("end", () => res.end("{}"));
  });
  const { url, exchanges } = await proxyTo(target);
  const big = 9 * 1024 * 1024;
  let sendRest: () => void = () => undefined;
  const rest = new Promise<void>((resolve) => (sendRest = resolve));
  async function* body() {
    yield Buffer.alloc(1024, 0x61);
    await rest;
    yield Buffer.alloc(big - 1024, 0x61);
  }
  const answered = request(`${url}/v1/agents/a/responses`, { method: "POST", body: Readable.from(body()) });
  // The upstream reads the first piece while the client still holds the rest.
  await firstPiece;
  sendRest();
  expect((await answered).statusCode).toBe(200);
  await until(() => exchanges.length === 1, "the exchange");
  expect(received).toBe(big);
  expect(exchanges[0]?.request.body).toBeUndefined();
});

test("the upstream is reached through HTTP_PROXY when it is set, as the suite's own requests are", async () => {
  const target = await upstream((_req, res) => res.end("{}"));
  const asked: string[] = [];
  // A corporate HTTP proxy: undici asks it for a tunnel (CONNECT host:port) to the target.
  const corporate = createServer();
  acceptConnectTunnels(corporate, (line) => asked.push(line));
  await new Promise<void>((resolve) => corporate.listen(0, "127.0.0.1", resolve));
  onTestFinished(
    () =>
      new Promise<void>((resolve) => {
        corporate.closeAllConnections();
        corporate.close(() => resolve());
      }),
  );
  const saved = process.env["HTTP_PROXY"];
  process.env["HTTP_PROXY"] = `http://127.0.0.1:${(corporate.address() as AddressInfo).port}`;
  let proxied;
  try {
    proxied = await proxyTo(target);
  } finally {
    if (saved === undefined) delete process.env["HTTP_PROXY"];
    else process.env["HTTP_PROXY"] = saved;
  }
  const response = await request(`${proxied.url}/v1/agents/a/conversations/x/messages`);
  expect(await response.body.text()).toBe("{}");
  expect(asked).toEqual([`CONNECT ${new URL(target).host}`]);
});
