import { randomUUID } from "node:crypto";
import type { IncomingMessage } from "node:http";
import { afterEach, describe, expect, test } from "vitest";
import { Semaphore } from "../http/concurrency.ts";
import { createClient, createPool } from "../http/client.ts";
import { closedPortUrl, serveHttp, serveTcp, type LocalServer } from "../test-support/local-servers.ts";
import { Redactor } from "../http/redact.ts";
import type { HttpResult, ServiceClient } from "../http/types.ts";
import { endpointOf, type Endpoint } from "../resilience/hostile-targets.ts";
import { preflight, type PreflightInput } from "./preflight.ts";

const KEY = "sk-live-preflight-0123456789";
const pools: { close(): Promise<void> }[] = [];
afterEach(async () => {
  await Promise.all(pools.splice(0).map((pool) => pool.close()));
});

function clientFor(baseUrl: string) {
  const limits = {
    requestTimeoutMs: 500,
    firstEventTimeoutMs: 500,
    idleTimeoutMs: 500,
    streamTimeoutMs: 1_000,
    maxResponseBytes: 1024,
    maxStreamBytes: 1024,
  };
  const pool = createPool(baseUrl, 1, limits.requestTimeoutMs);
  pools.push(pool);
  return createClient({
    baseUrl,
    primary: { apiKey: KEY, agentId: "agent-a" },
    limits,
    dispatcher: pool,
    semaphore: new Semaphore(1),
    redactor: new Redactor([KEY]),
    idempotencyKey: () => "conf-preflight",
  });
}

function input(baseUrl: string, overrides: Partial<PreflightInput> = {}): PreflightInput {
  return {
    client: clientFor(baseUrl),
    describe: "target",
    baseUrl,
    runId: "run1",
    primary: { apiKey: KEY, agentId: "agent-a" },
    creates: 1,
    ...overrides,
  };
}

interface Reply {
  status: number;
  body?: string;
  headers?: Record<string, string>;
}
const json = (status: number, body: unknown, headers: Record<string, string> = {}): Reply => ({
  status,
  body: JSON.stringify(body),
  headers: { "content-type": "application/json", ...headers },
});
const error = (status: number, code: string) => json(status, { error: { code, message: "no" } });
const CONVERSATION_NOT_FOUND = error(404, "conversation_not_found");

/**
 * A small service after the spec, at `prefix`/v1: agent-a (and agent-b when `agents` says so)
 * for KEY; unknown agents are 404 for a create and not found for the rest. `replies` replace
 * its answers per endpoint.
 */
async function service(
  replies: Partial<Record<Endpoint, (req: IncomingMessage) => Reply | undefined>> = {},
  options: { prefix?: string; agents?: string[] } = {},
): Promise<LocalServer> {
  const prefix = options.prefix ?? "";
  const agents = options.agents ?? ["agent-a"];
  const created = new Set<string>();
  const standard = (req: IncomingMessage, body: string): Reply => {
    const path = (req.url ?? "").split("?")[0] ?? "";
    const match = new RegExp(`^${prefix}/v1/agents/([^/]+)/`).exec(path);
    if (match === null) return error(404, "not_found");
    if (req.headers.authorization !== `Bearer ${KEY}`) return error(401, "unauthorized");
    const endpoint = endpointOf(req);
    const granted = agents.includes(match[1] ?? "");
    if (endpoint === "create") {
      if (!granted) return error(404, "not_found");
      if (typeof (JSON.parse(body) as { message?: unknown }).message !== "string") return error(400, "invalid_request");
      const id = randomUUID();
      created.add(id);
      return json(201, { conversation_id: id, response: "hi", citations: [] });
    }
    if (endpoint === "delete" && created.delete(path.split("/").pop() ?? "")) return { status: 204 };
    return CONVERSATION_NOT_FOUND;
  };
  return serveHttp((req, res, body) => {
    const reply = replies[endpointOf(req)]?.(req) ?? standard(req, body);
    res.writeHead(reply.status, reply.headers).end(reply.body);
  });
}

const sent = (server: LocalServer, method: string) => server.requests.filter((r) => r.method === method);

/** A listing answer as a client returns it, for a stub client that scripts them. */
function answer(status: number, headers: Record<string, string> = {}): HttpResult {
  const text = status === 404 ? JSON.stringify({ error: { code: "conversation_not_found", message: "no" } }) : "";
  return {
    status,
    headers,
    text,
    json: text === "" ? undefined : JSON.parse(text),
    transcript: {
      request: { method: "GET", url: "u", headers: {} },
      response: { status, headers, body: text },
      durationMs: 1,
    },
  };
}

function stubClient(list: () => Promise<HttpResult>): ServiceClient {
  const unused = () => Promise.reject(new Error("not expected"));
  return { list, delete: unused, create: unused, stream: unused };
}

describe("reachability", () => {
  test("any HTTP answer, even an error status, means the target is reachable", async () => {
    const server = await serveHttp((_req, res) => res.writeHead(500).end("boom"));
    expect(await preflight(input(server.url, { creates: 0 }))).toEqual({
      ok: true,
      probes: [{ probe: "list", identity: "primary", status: 500 }],
      created: [],
    });
  });

  test("an answer whose body breaks the size cap is still an answer: the checks judge the body", async () => {
    const server = await serveHttp((_req, res) => {
      res.writeHead(200, { "content-type": "application/json", "content-length": String(50 * 1024 * 1024) });
      res.write("{");
    });
    expect(await preflight(input(server.url))).toMatchObject({ ok: true, probes: [{ probe: "list", status: 200 }] });
  });

  test("a refused connection or a server that never answers cannot start a run, and the key is not in the reason", async () => {
    const refused = await preflight(input(await closedPortUrl()));
    expect(refused).toMatchObject({ ok: false, diagnosis: "unreachable" });
    const silent = await serveTcp(() => {});
    const hung = await preflight(input(silent.url));
    expect(hung).toMatchObject({
      ok: false,
      diagnosis: "unreachable",
      reason: expect.stringContaining("did not answer a first request"),
    });
    expect(JSON.stringify([refused, hung])).not.toContain(KEY);
  });
});

describe("a conforming service is never stopped", () => {
  // The spec leaves an unknown conversation's listing open; its delete is pinned (DEL-2).
  test.for([
    ["404 with no body", { status: 404 }],
    ["404 in plain text", { status: 404, body: "Not Found", headers: { "content-type": "text/plain" } }],
    ["404 with code not_found", error(404, "not_found")],
    ["403 (out of scope)", error(403, "forbidden")],
    ["401", error(401, "unauthorized")],
  ] as [string, Reply][])("an unknown conversation's listing answered %s", async ([, reply]) => {
    const server = await service({ list: () => reply });
    const result = await preflight(input(server.url));
    expect(result).toMatchObject({ ok: true, created: [{ agentId: "agent-a", deleted: true }] });
    expect(result.probes.map((p) => `${p.probe} ${p.status}`)).toEqual([
      `list ${reply.status}`,
      "delete 404",
      "create 201",
      "delete 204",
    ]);
  });

  test("nor one mounted under …/v1/v1, whose base URL really ends in /v1", async () => {
    const server = await service({}, { prefix: "/v1" });
    expect(await preflight(input(`${server.url}/v1`))).toMatchObject({ ok: true });
  });

  test("nor one that rate-limits the first requests: Retry-After is waited out", async () => {
    const answers = [answer(429, { "retry-after": "0" }), answer(503, { "retry-after": "0" }), answer(404)];
    const client = stubClient(async () => answers.shift() ?? answer(500));
    expect(await preflight({ ...input("http://127.0.0.1:9", { creates: 0 }), client })).toMatchObject({
      ok: true,
      probes: [{ probe: "list", status: 404 }],
    });
    expect(answers).toEqual([]);
  });
});

describe("what preflight leaves to the checks", () => {
  test("a gateway's error page for a server error is the service's trouble, not a wrong base URL", async () => {
    const page = (status: number): Reply => ({
      status,
      body: "<html><h1>Bad Gateway</h1></html>",
      headers: { "content-type": "text/html" },
    });
    const server = await service({ list: () => page(502), delete: () => page(502), create: () => page(504) });
    expect(await preflight(input(server.url))).toMatchObject({ ok: true });
  });

  test("a create answered 404 without a code says nothing about what was not found", async () => {
    const server = await service({
      create: () => ({ status: 404, body: "{}", headers: { "content-type": "application/json" } }),
    });
    expect(await preflight(input(server.url))).toMatchObject({ ok: true, created: [] });
  });
});

describe("diagnoses", () => {
  test("a listing that looks wrong, confirmed by a delete that is not the spec's either", async () => {
    const html = await serveHttp((_req, res) =>
      res.writeHead(200, { "content-type": "text/html" }).end("<!doctype html><p>hi</p>"),
    );
    expect(await preflight(input(html.url))).toMatchObject({
      ok: false,
      diagnosis: "not-this-api",
      reason:
        "target answers with an HTML page, not this API: is --base-url (CONFORMANCE_BASE_URL) the service's base URL?",
    });
    const plain = await serveHttp((_req, res) => res.writeHead(404, { "content-type": "text/plain" }).end("Not Found"));
    expect(await preflight(input(plain.url))).toMatchObject({
      ok: false,
      diagnosis: "not-this-api",
      reason:
        "target does not serve this API (the message listing answered 404 with a body that is not JSON): is --base-url (CONFORMANCE_BASE_URL) the service's base URL?",
    });
    const unauthorized = await serveHttp((_req, res) => res.writeHead(401).end());
    expect(await preflight(input(unauthorized.url))).toMatchObject({
      ok: false,
      diagnosis: "key-refused",
      reason: "the API key was refused (401) by target: check --api-key / CONFORMANCE_API_KEY",
    });
    expect(sent(unauthorized, "DELETE")).toHaveLength(1);
  });

  test("a base URL that already ends in /v1 is named, with the URL to use instead", async () => {
    const server = await service();
    const result = await preflight(input(`${server.url}/v1/`));
    expect(result).toMatchObject({
      ok: false,
      diagnosis: "base-url-ends-in-v1",
      reason: `--base-url ${server.url}/v1 already ends in /v1, which the suite adds itself (the message listing at …/v1/v1/… answered 404 with code not_found): try --base-url ${server.url}`,
    });
    expect(sent(server, "POST")).toEqual([]);
  });

  test("an agent the key cannot use, from the one create", async () => {
    const server = await service({}, { agents: [] });
    expect(await preflight(input(server.url))).toMatchObject({
      ok: false,
      diagnosis: "agent-unusable",
      reason:
        "agent agent-a is not usable with this key (a create through it answered 404 with code not_found): check --agent-id / CONFORMANCE_AGENT_ID",
    });
    const forbidden = await service({ create: () => error(403, "forbidden") });
    expect(await preflight(input(forbidden.url))).toMatchObject({ ok: false, diagnosis: "agent-unusable" });
  });

  test("or from a listing whose 404 names the agent", async () => {
    const server = await service({
      list: () => error(404, "agent_not_found"),
      delete: () => error(404, "agent_not_found"),
    });
    expect(await preflight(input(server.url))).toMatchObject({
      ok: false,
      diagnosis: "agent-unusable",
      reason:
        "agent agent-a is not usable with this key (the message listing answered 404 with code agent_not_found): check --agent-id / CONFORMANCE_AGENT_ID",
    });
  });

  test("a target still busy after bounded waits", async () => {
    let lists = 0;
    const client = stubClient(async () => {
      lists++;
      return answer(503, { "retry-after": "0" });
    });
    expect(await preflight({ ...input("http://127.0.0.1:9"), client })).toMatchObject({
      ok: false,
      diagnosis: "busy",
      reason: "the target target is busy: it still answered 503 to a first request after waiting: try again later",
    });
    expect(lists).toBe(4);
  });

  test("a 429 the client already waited out is not waited out again", async () => {
    let lists = 0;
    const waitedOut = Object.assign(new Error("retries exhausted"), {
      name: "InconclusiveError",
      kind: "retries",
      transcript: answer(429).transcript,
    });
    const client = stubClient(async () => {
      lists++;
      throw waitedOut;
    });
    expect(await preflight({ ...input("http://127.0.0.1:9"), client })).toMatchObject({ ok: false, diagnosis: "busy" });
    expect(lists).toBe(1);
  });
});

describe("the one create", () => {
  test("carries a run-scoped key and message, is deleted at once and reported as the run's", async () => {
    const server = await service();
    const result = await preflight(input(server.url));
    const [create] = sent(server, "POST");
    expect(create?.headers["idempotency-key"]).toBe("conf-run1-preflight");
    expect(JSON.parse(create?.body ?? "{}")).toEqual({ message: "conf-run1-preflight: is this agent usable?" });
    const conversationId = sent(server, "DELETE").at(-1)?.url.split("/").pop();
    expect(conversationId).toMatch(/^[0-9a-f-]{36}$/);
    expect(result).toEqual({
      ok: true,
      probes: expect.any(Array),
      created: [{ agentId: "agent-a", conversationId, deleted: true }],
    });
  });

  test("is not sent when the budget is 0, nor when the listing already showed the agent usable", async () => {
    const server = await service();
    expect(await preflight(input(server.url, { creates: 0 }))).toMatchObject({ ok: true, created: [] });
    const listing = await service({ list: () => json(200, { items: [] }) });
    expect(await preflight(input(listing.url))).toMatchObject({ ok: true, created: [] });
    expect([...sent(server, "POST"), ...sent(listing, "POST")]).toEqual([]);
  });
});

describe("other identities", () => {
  const otherAgent = { apiKey: KEY, agentId: "agent-b" };

  test("an other agent the key cannot use: the same body without a message is refused for the body through one agent, for the caller through the other", async () => {
    const server = await service();
    expect(await preflight(input(server.url, { otherAgent }))).toMatchObject({
      ok: false,
      diagnosis: "other-agent-unusable",
      reason:
        "agent agent-b is not usable with this key (a create without a message answered 404 with code not_found through it, 400 with code invalid_request through agent agent-a): check --other-agent-id / CONFORMANCE_OTHER_AGENT_ID",
    });
    const both = await service({}, { agents: ["agent-a", "agent-b"] });
    expect(await preflight(input(both.url, { otherAgent }))).toMatchObject({
      ok: true,
      created: [{ agentId: "agent-a", deleted: true }],
    });
  });

  test("an other key the service refuses", async () => {
    const server = await service();
    expect(
      await preflight(input(server.url, { otherKey: { apiKey: "sk-other-wrong", agentId: "agent-a" } })),
    ).toMatchObject({
      ok: false,
      diagnosis: "other-key-refused",
      reason: "the other API key was refused (401) by target: check --other-api-key / CONFORMANCE_OTHER_API_KEY",
    });
  });
});
