import { afterEach, describe, expect, test } from "vitest";
import { Semaphore } from "./concurrency.ts";
import { createClient, createPool, type ClientLimits, type ClientObserver } from "./client.ts";
import { HarnessError, InconclusiveError } from "./errors.ts";
import { closedPortUrl, serveHttp, serveTcp, writeFlood, TEST_CLIENT_LIMITS } from "../test-support/local-servers.ts";
import { Redactor } from "./redact.ts";
import type { Identity, ServiceClient, Transcript } from "./types.ts";

const KEY = "sk-live-0123456789abcdef";
const OTHER_KEY = "sk-other-fedcba9876543210";
const primary: Identity = { apiKey: KEY, agentId: "agent-a" };

const LIMITS: ClientLimits = TEST_CLIENT_LIMITS;

const pools: { close(): Promise<void> }[] = [];
afterEach(async () => {
  await Promise.all(pools.splice(0).map((pool) => pool.close()));
});

function clientFor(baseUrl: string, limits: Partial<ClientLimits> = {}, observer?: ClientObserver): ServiceClient {
  const all = { ...LIMITS, ...limits };
  const pool = createPool(baseUrl, 2, all.requestTimeoutMs);
  pools.push(pool);
  let n = 0;
  return createClient({
    baseUrl,
    primary,
    limits: all,
    dispatcher: pool,
    semaphore: new Semaphore(2),
    redactor: new Redactor([KEY, OTHER_KEY]),
    idempotencyKey: () => `conf-test-key-${++n}`,
    ...(observer ? { observer } : {}),
  });
}

async function caught(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error("expected the call to fail");
}

describe("requests", () => {
  test("paths sit under the base URL's prefix and every segment is encoded", async () => {
    const server = await serveHttp((_req, res) => res.writeHead(204).end());
    const client = clientFor(`${server.url}/api/`);
    await client.list("id with/slash", {
      as: { apiKey: KEY, agentId: "a/b?c" },
      query: { page: "1.5", page_size: 101 },
    });
    await client.delete("..");
    await client.create({ body: { message: "hi" } });
    expect(server.requests.map((r) => `${r.method} ${r.url}`)).toEqual([
      "GET /api/v1/agents/a%2Fb%3Fc/conversations/id%20with%2Fslash/messages?page=1.5&page_size=101",
      "DELETE /api/v1/agents/agent-a/conversations/%2E%2E",
      "POST /api/v1/agents/agent-a/responses",
    ]);
  });

  test("create sends the bearer key, JSON, and a fresh idempotency key unless told otherwise", async () => {
    const server = await serveHttp((_req, res) => res.writeHead(200, { "content-type": "application/json" }).end("{}"));
    const client = clientFor(server.url);
    await client.create({ body: { message: "hi" } });
    await client.create({ body: { message: "hi" } });
    await client.create({
      rawBody: "{not json",
      idempotencyKey: null,
      contentType: null,
      as: { apiKey: null, agentId: "agent-a" },
    });
    await client.create({ body: {}, authorization: "Basic abc", idempotencyKey: "mine", contentType: "text/plain" });
    const [first, second, raw, custom] = server.requests;
    expect(first?.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(first?.headers["content-type"]).toBe("application/json");
    expect(first?.headers["idempotency-key"]).toBe("conf-test-key-1");
    expect(second?.headers["idempotency-key"]).toBe("conf-test-key-2");
    expect(first?.body).toBe('{"message":"hi"}');
    expect(raw?.body).toBe("{not json");
    expect(raw?.headers.authorization).toBeUndefined();
    expect(raw?.headers["idempotency-key"]).toBeUndefined();
    expect(raw?.headers["content-type"]).toBeUndefined();
    expect(custom?.headers.authorization).toBe("Basic abc");
    expect(custom?.headers["idempotency-key"]).toBe("mine");
    expect(custom?.headers["content-type"]).toBe("text/plain");
  });

  test("a result carries status, lower-cased headers, text and parsed JSON", async () => {
    const server = await serveHttp((_req, res) => {
      res.setHeader("X-Thing", ["a", "b"]);
      res.writeHead(201, { "Content-Type": "application/json" }).end('{"ok":true}');
    });
    const result = await clientFor(server.url).create({ body: { message: "x" } });
    expect(result.status).toBe(201);
    expect(result.headers["x-thing"]).toBe("a, b");
    expect(result.text).toBe('{"ok":true}');
    expect(result.json).toEqual({ ok: true });
    expect(result.transcript.response?.status).toBe(201);
  });

  test("a body that is not JSON gives json undefined, not an error", async () => {
    const server = await serveHttp((_req, res) => res.writeHead(200, { "content-type": "text/html" }).end("<p>hi</p>"));
    const result = await clientFor(server.url).list("c");
    expect(result.json).toBeUndefined();
    expect(result.text).toBe("<p>hi</p>");
  });
});

describe("redaction", () => {
  test("no key appears in a transcript, even when the target echoes it everywhere", async () => {
    const server = await serveHttp((req, res) => {
      res.writeHead(400, { "content-type": "application/json", "x-echo": String(req.headers.authorization) });
      res.end(
        JSON.stringify({ error: { code: "bad", message: `your key ${req.headers.authorization} and ${OTHER_KEY}` } }),
      );
    });
    const client = clientFor(server.url);
    const result = await client.create({ body: { message: `a message that quotes ${KEY}` } });
    const text = JSON.stringify(result.transcript);
    expect(text).not.toContain(KEY);
    expect(text).not.toContain(OTHER_KEY);
    expect(result.transcript.request.headers.authorization).toBe("Bearer sk-l…(redacted)");
    // The result itself is what the target sent: checks may need it verbatim.
    expect(result.text).toContain(KEY);
  });

  test("no key appears in the error or transcript of a failed request", async () => {
    const server = await serveHttp(() => {
      // Never answers.
    });
    const seen: Transcript[] = [];
    const client = clientFor(
      server.url,
      { requestTimeoutMs: 150 },
      {
        beforeCreate: () => ({ settle: () => {} }),
        onExchange: (t) => seen.push(t),
        signal: () => undefined,
      },
    );
    const error = await caught(client.create({ authorization: `Bearer ${OTHER_KEY}`, body: { message: KEY } }));
    expect(error).toBeInstanceOf(InconclusiveError);
    const everything = JSON.stringify({
      message: (error as Error).message,
      transcript: (error as InconclusiveError).transcript,
      seen,
    });
    expect(everything).not.toContain(KEY);
    expect(everything).not.toContain(OTHER_KEY);
    expect(seen).toHaveLength(1);
  });
});

describe("failures", () => {
  test("a server that never answers is inconclusive, bounded by the request timeout and naming its flag", async () => {
    const server = await serveHttp(() => {
      // Never answers.
    });
    const error = await caught(clientFor(server.url, { requestTimeoutMs: 150 }).list("c"));
    expect(error).toMatchObject({ name: "InconclusiveError", kind: "timeout", flag: "--request-timeout" });
    expect((error as InconclusiveError).transcript?.failure).toContain("150 ms");
    expect((error as Error).message).toContain("raise --request-timeout");
  });

  test("headers and then a body that never finishes is a timeout", async () => {
    const server = await serveHttp((_req, res) => {
      res.writeHead(200, { "content-type": "application/json" });
      res.write('{"partial":');
    });
    const error = await caught(clientFor(server.url, { requestTimeoutMs: 150 }).list("c"));
    expect(error).toMatchObject({ name: "InconclusiveError", kind: "timeout" });
    expect((error as InconclusiveError).transcript?.response?.status).toBe(200);
  });

  test("a body past the cap is cut off and reported", async () => {
    let written = 0;
    const server = await serveHttp(async (_req, res) => {
      res.writeHead(200, { "content-type": "application/json" });
      written = await writeFlood(res, Buffer.alloc(16 * 1024, 0x20), 50 * 1024 * 1024);
    });
    const error = await caught(clientFor(server.url, { maxResponseBytes: 64 * 1024 }).list("c"));
    expect(error).toMatchObject({ name: "TargetError", kind: "size-cap" });
    expect(written).toBeLessThan(50 * 1024 * 1024);
  });

  test("a declared Content-Length past the cap is refused before reading", async () => {
    const server = await serveHttp((_req, res) => {
      res.writeHead(200, { "content-type": "application/json", "content-length": String(10 * 1024 * 1024) });
      res.write("{");
    });
    const error = await caught(clientFor(server.url, { maxResponseBytes: 64 * 1024 }).list("c"));
    expect(error).toMatchObject({ name: "TargetError", kind: "size-cap" });
  });

  test("a connection reset mid-body is a connection-reset", async () => {
    const server = await serveHttp((_req, res) => {
      res.writeHead(200, { "content-type": "application/json" });
      res.write('{"items": [', () => res.socket?.destroy());
    });
    const error = await caught(clientFor(server.url).list("c"));
    expect(error).toMatchObject({ name: "TargetError", kind: "connection-reset" });
  });

  test("garbage instead of HTTP is a protocol failure of the target", async () => {
    const server = await serveTcp((socket) => socket.end("SMTP ready\r\n\r\n"));
    const error = await caught(clientFor(server.url).list("c"));
    expect(error).toMatchObject({ name: "TargetError", kind: "protocol" });
  });

  test("a refused connection is a HarnessError", async () => {
    const error = await caught(clientFor(await closedPortUrl()).list("c"));
    expect(error).toBeInstanceOf(HarnessError);
    expect(error).toMatchObject({ kind: "unreachable" });
  });

  test("the observer's signal cancels a request in flight", async () => {
    const server = await serveHttp(() => {
      // Never answers.
    });
    const controller = new AbortController();
    const client = clientFor(
      server.url,
      {},
      { beforeCreate: () => ({ settle: () => {} }), onExchange: () => {}, signal: () => controller.signal },
    );
    const pending = caught(client.list("c"));
    setTimeout(() => controller.abort(), 30);
    expect(await pending).toMatchObject({ name: "InconclusiveError", kind: "timeout", flag: "--check-timeout" });
  });

  test("a create the observer refuses is never sent", async () => {
    const server = await serveHttp((_req, res) => res.writeHead(200).end());
    const client = clientFor(
      server.url,
      {},
      {
        beforeCreate: () => {
          throw new HarnessError("budget", "no creates left");
        },
        onExchange: () => {},
        signal: () => undefined,
      },
    );
    await expect(client.create({ body: { message: "x" } })).rejects.toMatchObject({ kind: "budget" });
    await expect(client.stream({ body: { message: "x" } })).rejects.toMatchObject({ kind: "budget" });
    await client.list("c");
    expect(server.requests.map((r) => r.method)).toEqual(["GET"]);
  });
});

describe("streams through the client", () => {
  test("stream posts to /responses/stream with Accept: text/event-stream and reports the exchange", async () => {
    const server = await serveHttp((_req, res) => {
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.end('event: response.completed\ndata: {"type":"response.completed"}\n\n');
    });
    const seen: Transcript[] = [];
    const client = clientFor(
      server.url,
      {},
      { beforeCreate: () => ({ settle: () => {} }), onExchange: (t) => seen.push(t), signal: () => undefined },
    );
    const result = await client.stream({ body: { message: "x" } });
    expect(result.terminal).toBe("response.completed");
    expect(server.requests[0]?.url).toBe("/v1/agents/agent-a/responses/stream");
    expect(server.requests[0]?.headers.accept).toBe("text/event-stream");
    expect(seen).toHaveLength(1);
  });
});
