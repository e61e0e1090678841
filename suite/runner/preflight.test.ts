import { afterEach, expect, test } from "vitest";
import { Semaphore } from "../harness/budget.ts";
import { createClient, createPool } from "../harness/client.ts";
import { closedPortUrl, serveHttp, serveTcp } from "../harness/local-servers.ts";
import { Redactor } from "../harness/redact.ts";
import { preflight } from "./preflight.ts";

const KEY = "sk-live-preflight-0123456789";
const pools: { close(): Promise<void> }[] = [];
afterEach(async () => {
  await Promise.all(pools.splice(0).map((pool) => pool.close()));
});

function clientFor(baseUrl: string) {
  const limits = {
    requestTimeoutMs: 500, firstEventTimeoutMs: 500, idleTimeoutMs: 500, streamTimeoutMs: 1_000,
    maxResponseBytes: 1024, maxStreamBytes: 1024,
  };
  const pool = createPool(baseUrl, 1, limits.requestTimeoutMs);
  pools.push(pool);
  return createClient({
    baseUrl, primary: { apiKey: KEY, agentId: "agent-a" }, limits, dispatcher: pool,
    semaphore: new Semaphore(1), redactor: new Redactor([KEY]), idempotencyKey: () => "conf-preflight",
  });
}

test("any HTTP answer, even an error status, means the target is reachable", async () => {
  const server = await serveHttp((_req, res) => res.writeHead(500).end("boom"));
  expect(await preflight(clientFor(server.url), "target")).toEqual({ ok: true, status: 500 });
});

test("an answer whose body breaks the size cap is still an answer: the checks judge the body", async () => {
  const server = await serveHttp((_req, res) => {
    res.writeHead(200, { "content-type": "application/json", "content-length": String(50 * 1024 * 1024) });
    res.write("{");
  });
  expect(await preflight(clientFor(server.url), "target")).toEqual({ ok: true, status: 200 });
});

test("a refused connection or a server that never answers cannot start a run, and the key is not in the reason", async () => {
  const refused = await preflight(clientFor(await closedPortUrl()), "target");
  expect(refused.ok).toBe(false);
  const silent = await serveTcp(() => {});
  const hung = await preflight(clientFor(silent.url), "target");
  expect(hung).toMatchObject({ ok: false, reason: expect.stringContaining("did not answer a first request") });
  expect(JSON.stringify([refused, hung])).not.toContain(KEY);
});
