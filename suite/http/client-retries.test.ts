/**
 * "Try later" answers: the client waits them out with the same key and body, honouring
 * Retry-After, tells its observer, and gives up as inconclusive past --max-retries. A create the
 * target kept refusing consumed nothing of the budget.
 */
import { afterEach, describe, expect, test, vi } from "vitest";
import { Semaphore } from "./concurrency.ts";
import { createClient, createPool, type ClientObserver } from "./client.ts";
import { InconclusiveError } from "./errors.ts";
import { serveHttp, TEST_CLIENT_LIMITS } from "../test-support/local-servers.ts";
import { Redactor } from "./redact.ts";
import { Pacer, retryAfterMs, waitBeforeRetry } from "./retry.ts";
import type { RetryNote, ServiceClient } from "./types.ts";

const KEY = "sk-live-0123456789abcdef";
const GATEWAY_SECRET = "gw-secret-value-42";
const LIMITS = TEST_CLIENT_LIMITS;

const pools: { close(): Promise<void> }[] = [];
afterEach(async () => {
  await Promise.all(pools.splice(0).map((pool) => pool.close()));
});

interface Seen {
  retries: RetryNote[];
  settled: boolean[];
}

function clientFor(
  baseUrl: string,
  maxRetries: number,
  extraHeaders: Record<string, string> = {},
): { client: ServiceClient; seen: Seen } {
  const pool = createPool(baseUrl, 2, LIMITS.requestTimeoutMs);
  pools.push(pool);
  const seen: Seen = { retries: [], settled: [] };
  const observer: ClientObserver = {
    beforeCreate: () => ({ settle: (consumed) => void seen.settled.push(consumed) }),
    onExchange: () => {},
    onRetry: (note) => void seen.retries.push(note),
    signal: () => undefined,
  };
  let n = 0;
  const client = createClient({
    baseUrl,
    primary: { apiKey: KEY, agentId: "agent-a" },
    limits: LIMITS,
    dispatcher: pool,
    semaphore: new Semaphore(2),
    redactor: new Redactor([KEY, ...Object.values(extraHeaders)]),
    idempotencyKey: () => `conf-test-key-${++n}`,
    maxRetries,
    extraHeaders,
    observer,
  });
  return { client, seen };
}

/** Answers the first `refusals` requests with `status` and Retry-After 0, then `finally`. */
function refusingThen(
  refusals: number,
  status: number,
  headers: Record<string, string>,
  final: (res: import("node:http").ServerResponse) => void,
) {
  let count = 0;
  return serveHttp((_req, res) => {
    if (count++ < refusals) {
      res.writeHead(status, { "content-type": "application/json", ...headers }).end('{"error":{"code":"busy"}}');
      return;
    }
    final(res);
  });
}

const okResult = (res: import("node:http").ServerResponse) =>
  res
    .writeHead(200, { "content-type": "application/json" })
    .end('{"conversation_id":"c","response":"r","citations":[]}');

describe("retries of try-later answers", () => {
  test.each([429, 503])(
    "a create answered %i is retried with the same key and body until it is served",
    async (status) => {
      const server = await refusingThen(2, status, { "retry-after": "0" }, okResult);
      const { client, seen } = clientFor(server.url, 3);
      const result = await client.create({ body: { message: "hello" } });
      expect(result.status).toBe(200);
      expect(server.requests).toHaveLength(3);
      const keys = new Set(server.requests.map((r) => r.headers["idempotency-key"]));
      expect(keys.size).toBe(1);
      expect(new Set(server.requests.map((r) => r.body))).toEqual(new Set(['{"message":"hello"}']));
      expect(seen.retries).toEqual([
        { status, waitMs: 0 },
        { status, waitMs: 0 },
      ]);
      expect(seen.settled).toEqual([true]);
    },
  );

  test("a stream refused with 503 before it started is retried under the same key", async () => {
    const server = await refusingThen(1, 503, { "retry-after": new Date(Date.now() - 5_000).toUTCString() }, (res) => {
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.end('event: response.completed\ndata: {"type":"response.completed"}\n\n');
    });
    const { client, seen } = clientFor(server.url, 2);
    const result = await client.stream({ body: { message: "x" } });
    expect(result.terminal).toBe("response.completed");
    expect(server.requests).toHaveLength(2);
    expect(server.requests[0]?.headers["idempotency-key"]).toBe(server.requests[1]?.headers["idempotency-key"]);
    expect(seen.retries).toHaveLength(1);
  });

  test("past --max-retries the request is inconclusive, and the refused create consumed nothing", async () => {
    const server = await refusingThen(100, 429, { "retry-after": "0" }, okResult);
    const { client, seen } = clientFor(server.url, 2);
    const error = await client.create({ body: { message: "x" } }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InconclusiveError);
    expect(error).toMatchObject({ kind: "retries", flag: "--max-retries" });
    expect((error as Error).message).toContain("still answered 429 after 2 retries");
    expect(server.requests).toHaveLength(3);
    expect(seen.settled).toEqual([false]);
  });

  test("a 409 with Retry-After is waited out, unless the check asked for the 409 itself", async () => {
    const server = await refusingThen(1, 409, { "retry-after": "0" }, okResult);
    const { client } = clientFor(server.url, 2);
    expect((await client.create({ body: { message: "x" } })).status).toBe(200);

    const verdict = await refusingThen(1, 409, { "retry-after": "0" }, okResult);
    const { client: asking } = clientFor(verdict.url, 2);
    expect((await asking.create({ body: { message: "x" }, retryInUse: false })).status).toBe(409);
    expect(verdict.requests).toHaveLength(1);
  });

  test("a 409 without Retry-After and a 400 are answers, never retried", async () => {
    for (const status of [409, 400]) {
      const server = await refusingThen(1, status, {}, okResult);
      const { client, seen } = clientFor(server.url, 3);
      expect((await client.create({ body: { message: "x" } })).status).toBe(status);
      expect(server.requests).toHaveLength(1);
      expect(seen.settled).toEqual([false]);
    }
  });
});

describe("headers given with --header", () => {
  test("go on every request, yield to the check's own, and never show in a transcript", async () => {
    const server = await serveHttp((_req, res) => res.writeHead(204).end());
    const { client } = clientFor(server.url, 0, { "x-gateway-key": GATEWAY_SECRET, "x-tenant": "t1" });
    const listed = await client.list("c");
    await client.delete("c", { headers: { "x-tenant": "t2" } });
    expect(server.requests.map((r) => [r.headers["x-gateway-key"], r.headers["x-tenant"]])).toEqual([
      [GATEWAY_SECRET, "t1"],
      [GATEWAY_SECRET, "t2"],
    ]);
    expect(JSON.stringify(listed.transcript)).not.toContain(GATEWAY_SECRET);
  });
});

describe("Retry-After", () => {
  test("is read as delta-seconds or an HTTP date, and anything else is ignored", () => {
    const now = Date.parse("2026-11-23T12:00:00Z");
    expect(retryAfterMs("3", now)).toBe(3000);
    expect(retryAfterMs(" 0 ", now)).toBe(0);
    expect(retryAfterMs("Mon, 23 Nov 2026 12:00:05 GMT", now)).toBe(5000);
    expect(retryAfterMs("Mon, 23 Nov 2026 11:00:00 GMT", now)).toBe(0);
    expect(retryAfterMs("soon", now)).toBeUndefined();
    expect(retryAfterMs("-1", now)).toBeUndefined();
    expect(retryAfterMs(undefined, now)).toBeUndefined();
  });

  test("without it the wait backs off, and no wait is longer than a minute", () => {
    expect([0, 1, 2, 3, 10].map((attempt) => waitBeforeRetry(attempt, undefined))).toEqual([
      500, 1000, 2000, 4000, 8000,
    ]);
    expect(waitBeforeRetry(0, "86400")).toBe(60_000);
  });
});

describe("Pacer", () => {
  test("lets requests through no faster than the rate, in order", async () => {
    vi.useFakeTimers();
    try {
      const pacer = new Pacer(10);
      const done: number[] = [];
      const turns = [0, 1, 2].map((i) => pacer.turn().then(() => void done.push(i)));
      await vi.advanceTimersByTimeAsync(0);
      expect(done).toEqual([0]);
      await vi.advanceTimersByTimeAsync(100);
      expect(done).toEqual([0, 1]);
      await vi.advanceTimersByTimeAsync(100);
      await Promise.all(turns);
      expect(done).toEqual([0, 1, 2]);
    } finally {
      vi.useRealTimers();
    }
  });
});
