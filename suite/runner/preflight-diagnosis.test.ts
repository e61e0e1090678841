/**
 * The operator's mistakes, end to end through runConformance against local targets: each
 * stops before any check with exit 2 and one diagnosis line naming the flag to fix, never a
 * list of MUST failures and never a key. A conforming target that rate-limits is not stopped.
 */

import { randomUUID } from "node:crypto";
import { readdir, readFile } from "node:fs/promises";
import type { ServerResponse } from "node:http";
import { join } from "node:path";
import { expect, onTestFinished, test } from "vitest";
import { createFakeServer } from "../../fake-server/index.ts";
import type { ConformanceInput } from "./config.ts";
import { serveHttp } from "../test-support/local-servers.ts";
import { runConformance } from "./run.ts";
import { tempDir } from "../test-support/runner-fixtures.ts";

const KEY = "sk-e2e-primary-0123456789";
const OTHER_KEY = "sk-e2e-other-0123456789";
const WRONG_KEY = "sk-e2e-wrong-0123456789";
const SECRETS = [KEY, OTHER_KEY, WRONG_KEY];

/** The fake with its default grants under longer keys: KEY reaches agent-a and agent-b, OTHER_KEY agent-a on another channel. */
async function fake(): Promise<string> {
  const server = await createFakeServer({ port: 0, keys: [`${KEY}=agent-a,agent-b@web`, `${OTHER_KEY}=agent-a@sms`] });
  onTestFinished(() => server.close());
  return server.url;
}

async function run(input: ConformanceInput) {
  const reportDir = await tempDir("conformance-preflight-");
  const stdout: string[] = [];
  const stderr: string[] = [];
  const outcome = await runConformance(
    { ...input, reportDir },
    { progress: false, print: (l) => stdout.push(l), printError: (l) => stderr.push(l) },
  );
  const names = await readdir(reportDir);
  const reports: Record<string, string> = Object.fromEntries(
    await Promise.all(names.map(async (name) => [name, await readFile(join(reportDir, name), "utf8")] as const)),
  );
  for (const text of [...stdout, ...stderr, ...Object.values(reports)]) {
    for (const secret of SECRETS) expect(text).not.toContain(secret);
  }
  return { ...outcome, stdout, stderr, reports };
}

async function expectDiagnosis(input: ConformanceInput, line: string): Promise<void> {
  const result = await run(input);
  expect(result.exitCode, result.stderr.join("\n")).toBe(2);
  expect(result.stderr).toEqual([`agent-conformance: ${line}`]);
  expect(result.stdout).toEqual([]);
  // The reports a CI step uploads: all three, with result "error" and the diagnosis.
  expect(Object.keys(result.reports).sort()).toEqual(["conformance.json", "junit.xml", "report.html"]);
  const json = JSON.parse(result.reports["conformance.json"] ?? "{}") as { result?: string; diagnosis?: string };
  expect(json).toMatchObject({ result: "error", diagnosis: line });
  expect(result.reports["junit.xml"]).toContain('errors="1"');
  expect(result.reports["report.html"]).toContain("<strong>ERROR</strong>");
}

test("a wrong API key", async () => {
  const url = await fake();
  await expectDiagnosis(
    { baseUrl: url, apiKey: WRONG_KEY, agentId: "agent-a" },
    `the API key was refused (401) by ${url} (agent agent-a): check --api-key / CONFORMANCE_API_KEY`,
  );
});

test("a base URL that already ends in /v1", async () => {
  const url = await fake();
  await expectDiagnosis(
    { baseUrl: `${url}/v1`, apiKey: KEY, agentId: "agent-a" },
    `--base-url ${url}/v1 already ends in /v1, which the suite adds itself (the message listing at …/v1/v1/… answered 404 with code not_found): try --base-url ${url}`,
  );
});

test("an agent the key does not grant", async () => {
  const url = await fake();
  await expectDiagnosis(
    { baseUrl: url, apiKey: KEY, agentId: "agent-z" },
    "agent agent-z is not usable with this key (a create through it answered 404 with code not_found): check --agent-id / CONFORMANCE_AGENT_ID",
  );
});

test("a wrong --other-api-key", async () => {
  const url = await fake();
  await expectDiagnosis(
    { baseUrl: url, apiKey: KEY, agentId: "agent-a", otherApiKey: WRONG_KEY },
    `the other API key was refused (401) by ${url} (agent agent-a): check --other-api-key / CONFORMANCE_OTHER_API_KEY`,
  );
});

test("an --other-agent-id the key does not grant", async () => {
  const url = await fake();
  await expectDiagnosis(
    { baseUrl: url, apiKey: KEY, agentId: "agent-a", otherAgentId: "agent-z" },
    "agent agent-z is not usable with this key (a create without a message answered 404 with code not_found through it, " +
      "400 with code invalid_request through agent agent-a): check --other-agent-id / CONFORMANCE_OTHER_AGENT_ID",
  );
});

test("a port that serves an HTML page on every path", async () => {
  const server = await serveHttp((req, res) => {
    res
      .writeHead(200, { "content-type": "text/html; charset=utf-8" })
      .end(`<!doctype html><p>Signed in as ${req.headers.authorization ?? ""}</p>`);
  });
  await expectDiagnosis(
    { baseUrl: server.url, apiKey: KEY, agentId: "agent-a" },
    `${server.url} (agent agent-a) answers with an HTML page, not this API: is --base-url (CONFORMANCE_BASE_URL) the service's base URL?`,
  );
});

test("https:// against a port that answers plain HTTP: use http://, not an OpenSSL error", async () => {
  const server = await serveHttp((_req, res) => res.writeHead(404).end());
  const port = new URL(server.url).port;
  const https = `https://127.0.0.1:${port}`;
  await expectDiagnosis(
    { baseUrl: https, apiKey: KEY, agentId: "agent-a" },
    `the target ${https} (agent agent-a) did not answer over TLS: the port answers plain HTTP: use http:// (--base-url http://127.0.0.1:${port})`,
  );
});

test("a service answering 401 with no body", async () => {
  const server = await serveHttp((_req, res) => res.writeHead(401).end());
  await expectDiagnosis(
    { baseUrl: server.url, apiKey: KEY, agentId: "agent-a" },
    `the API key was refused (401) by ${server.url} (agent agent-a): check --api-key / CONFORMANCE_API_KEY`,
  );
});

test("a conforming target that rate-limits its first two requests is waited out, not diagnosed", async () => {
  const upstream = await fake();
  let limited = 0;
  const proxy = await serveHttp(async (req, res, body) => {
    if (limited++ < 2) {
      res
        .writeHead(429, { "content-type": "application/json", "retry-after": "1" })
        .end(JSON.stringify({ error: { code: "rate_limited", message: "later" } }));
      return;
    }
    const headers = Object.fromEntries(
      Object.entries(req.headers).filter(([name]) => name !== "host" && name !== "connection"),
    ) as Record<string, string>;
    const answer = await fetch(`${upstream}${req.url ?? ""}`, {
      method: req.method ?? "GET",
      headers,
      body: body === "" ? undefined : body,
    });
    const kept = [...answer.headers].filter(
      ([name]) => !["content-length", "transfer-encoding", "connection", "keep-alive"].includes(name),
    );
    res.writeHead(answer.status, Object.fromEntries(kept)).end(await answer.text());
  });

  const result = await run({ baseUrl: proxy.url, apiKey: KEY, agentId: "agent-a", only: ["LIST-9"] });
  expect(result.exitCode, [...result.stdout, ...result.stderr].join("\n")).toBe(0);
  expect(result.stderr).toEqual([]);
  expect(limited).toBeGreaterThan(2);
  expect(result.report?.requirements.find((r) => r.id === "LIST-9")?.status).toBe("pass");
  // The preflight's one create is the run's: counted, and its conversation already deleted.
  expect(result.report?.creates.spent).toBe(1);
}, 30_000);

/** FastAPI's router answers every path it does not know this way. */
const FRAMEWORK_404 = JSON.stringify({ detail: "Not Found" });

test("a framework's own 404 on every path (a wrong base URL on a FastAPI service)", async () => {
  const server = await serveHttp((_req, res) =>
    res.writeHead(404, { "content-type": "application/json" }).end(FRAMEWORK_404),
  );
  await expectDiagnosis(
    { baseUrl: server.url, apiKey: KEY, agentId: "agent-a" },
    `${server.url} (agent agent-a) does not serve this API (the message listing answered 404 with a JSON body that names no error code): is --base-url (CONFORMANCE_BASE_URL) the service's base URL?`,
  );
});

test("a conforming target whose unknown listing names no code is not diagnosed: its delete vouches for it", async () => {
  const upstream = await fake();
  const proxy = await serveHttp(async (req, res, body) => {
    const headers = Object.fromEntries(
      Object.entries(req.headers).filter(([name]) => name !== "host" && name !== "connection"),
    ) as Record<string, string>;
    const answer = await fetch(`${upstream}${req.url ?? ""}`, {
      method: req.method ?? "GET",
      headers,
      body: body === "" ? undefined : body,
    });
    const kept = [...answer.headers].filter(
      ([name]) => !["content-length", "transfer-encoding", "connection", "keep-alive"].includes(name),
    );
    // LIST-9 is only a SHOULD: a listing may answer an unknown conversation without a code.
    const listing = req.method === "GET" && answer.status === 404;
    res.writeHead(answer.status, Object.fromEntries(kept)).end(listing ? FRAMEWORK_404 : await answer.text());
  });
  const result = await run({ baseUrl: proxy.url, apiKey: KEY, agentId: "agent-a", only: ["LIST-9"] });
  expect(result.stderr).toEqual([]);
  expect(result.report?.requirements.find((r) => r.id === "LIST-9")?.status).toBe("warn");
  expect(result.exitCode).toBe(0);
});

/**
 * A FastAPI-like service: its missing conversation is HTTPException(404, "Conversation not found")
 * with no code, and its router answers a path it does not know {"detail": "Not Found"}.
 */
async function codelessNotFoundService() {
  const stored = new Set<string>();
  const json = (res: ServerResponse, status: number, body?: unknown) =>
    res
      .writeHead(status, { "content-type": "application/json" })
      .end(body === undefined ? undefined : JSON.stringify(body));
  return serveHttp((req, res) => {
    const path = new URL(req.url ?? "/", "http://x").pathname;
    if (req.headers.authorization !== `Bearer ${KEY}`) return json(res, 401, { detail: "Not authenticated" });
    if (req.method === "POST" && path === "/v1/agents/agent-a/responses") {
      const id = randomUUID();
      stored.add(id);
      return json(res, 201, { conversation_id: id, response: "hello", citations: [] });
    }
    const conversation = /^\/v1\/agents\/agent-a\/conversations\/([^/]+)(\/messages)?$/.exec(path);
    if (conversation === null) return json(res, 404, { detail: "Not Found" });
    const [, id = "", messages] = conversation;
    if (!stored.has(id)) return json(res, 404, { detail: "Conversation not found" });
    if (messages !== undefined && req.method === "GET")
      return json(res, 200, { items: [], page: 1, page_size: 20, total: 0, has_more: false });
    if (messages === undefined && req.method === "DELETE") {
      stored.delete(id);
      return json(res, 204);
    }
    return json(res, 405, { detail: "Method Not Allowed" });
  });
}

test("a service whose not-found answer names no code is judged, not diagnosed as another API: it fails DEL-2", async () => {
  const server = await codelessNotFoundService();
  const result = await run({ baseUrl: server.url, apiKey: KEY, agentId: "agent-a", only: ["DEL-2"] });
  expect(result.stderr.join("\n")).not.toContain("does not serve this API");
  expect(result.exitCode, [...result.stdout, ...result.stderr].join("\n")).toBe(1);
  expect(result.report?.requirements.find((r) => r.id === "DEL-2")).toMatchObject({ status: "fail" });
  expect(result.report?.result).toBe("fail");
  // It compared the listing's 404 with a path that has no route, and made one create, deleted at once.
  expect(
    server.requests.some((r) => r.method === "GET" && /\/v1\/agents\/agent-a\/no-such-route-[0-9a-f]+$/.test(r.url)),
  ).toBe(true);
  expect(result.report?.cleanup).toEqual({ deleted: 0, failed: [] });
});
