import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { connect } from "node:net";
import { request } from "undici";
import { expect, onTestFinished, test } from "vitest";
import { RequestLogPage } from "../request-log/schemas.ts";
import { createFakeApp } from "../app.ts";
import { call, createResponse, deleteConversation, streamResponse, type Reply } from "../test-support/client.ts";
import { fakeServer } from "../test-support/server.ts";

const EXPOSED = "Idempotent-Replayed, Retry-After, WWW-Authenticate";
const REQUIRED_HEADERS = [
  "authorization",
  "content-type",
  "idempotency-key",
  "accept",
  "x-fake-fault",
  "x-fake-session",
];
const UNKNOWN_CONVERSATION = "0190f5a0-0000-7000-8000-000000000000";

/** What a browser sends before a cross-origin POST with the app's headers: no key, no body. */
async function preflight(
  url: string,
  requestedHeaders = "authorization, content-type, idempotency-key, x-fake-session",
) {
  const reply = await request(url, {
    method: "OPTIONS",
    headersTimeout: 5_000,
    bodyTimeout: 5_000,
    headers: {
      origin: "http://app.example",
      "access-control-request-method": "POST",
      "access-control-request-headers": requestedHeaders,
    },
  });
  const text = await reply.body.text();
  return { status: reply.statusCode, headers: reply.headers as Record<string, string | undefined>, text };
}

const names = (list: string | undefined) =>
  String(list)
    .toLowerCase()
    .split(/\s*,\s*/);

function expectCors(reply: Pick<Reply, "headers">) {
  expect(reply.headers["access-control-allow-origin"]).toBe("*");
  expect(reply.headers["access-control-expose-headers"]).toBe(EXPOSED);
}

function expectPreflightAnswer(reply: Awaited<ReturnType<typeof preflight>>) {
  expect(reply.status).toBe(204);
  expect(reply.text).toBe("");
  expect(reply.headers["access-control-allow-origin"]).toBe("*");
  expect(names(reply.headers["access-control-allow-methods"])).toEqual(
    expect.arrayContaining(["get", "post", "delete"]),
  );
  expect(names(reply.headers["access-control-allow-headers"])).toEqual(expect.arrayContaining(REQUIRED_HEADERS));
}

async function requestLog(origin: string, session = "default") {
  return RequestLogPage.parse((await call(origin, "GET", `/__fake/requests?session=${session}`, {})).json).requests;
}

test("answers on /v1 and /__fake allow any origin and expose what a client reads, errors and streams included", async () => {
  const fake = await fakeServer();
  const answers = [
    await createResponse(fake.url),
    await streamResponse(fake.url),
    await createResponse(fake.url, { key: null }),
    await deleteConversation(fake.url, UNKNOWN_CONVERSATION),
    await call(fake.url, "GET", "/__fake/health", {}),
    await call(fake.url, "POST", "/__fake/faults", { "content-type": "application/json" }, "{not json"),
  ];
  expect(answers.map((reply) => reply.status)).toEqual([200, 200, 401, 404, 200, 400]);
  for (const reply of answers) expectCors(reply);
  // Only the API and the controls: other paths are not the fake's to open up.
  expect((await call(fake.url, "GET", "/elsewhere", {})).headers["access-control-allow-origin"]).toBeUndefined();
});

test("a preflight is 204 without a key, lists the methods and headers, and is neither logged nor a client violation", async () => {
  const fake = await fakeServer();
  for (const path of [
    "/v1/agents/agent-a/responses",
    "/v1/agents/agent-a/responses/stream",
    `/v1/agents/agent-a/conversations/${UNKNOWN_CONVERSATION}/messages`,
    "/v1/agents/no-such-agent/whatever",
    "/__fake/faults",
    "/__fake/requests",
  ]) {
    expectPreflightAnswer(await preflight(`${fake.url}${path}`));
  }
  expect(fake.clientViolations()).toEqual([]);
  expect(await requestLog(fake.url)).toEqual([]);
  expect(fake.sessions()).toEqual(["default"]);
});

test("a page on a public origin may reach the fake on localhost: Private Network Access preflights are allowed", async () => {
  const fake = await fakeServer();
  const reply = await request(`${fake.url}/v1/agents/agent-a/responses`, {
    method: "OPTIONS",
    headers: {
      origin: "https://preview.app.example",
      "access-control-request-method": "POST",
      "access-control-request-private-network": "true",
    },
  });
  await reply.body.text();
  expect(reply.statusCode).toBe(204);
  expect(reply.headers["access-control-allow-private-network"]).toBe("true");
  expect(
    (await preflight(`${fake.url}/v1/agents/agent-a/responses`)).headers["access-control-allow-private-network"],
  ).toBeUndefined();
});

test("a header the browser asks for beyond the list is allowed; markup or a huge list is not echoed", async () => {
  const fake = await fakeServer();
  const url = `${fake.url}/v1/agents/agent-a/responses`;
  expect(
    names((await preflight(url, "authorization, x-request-id")).headers["access-control-allow-headers"]),
  ).toContain("x-request-id");
  for (const hostile of [
    `authorization, <script>`,
    `authorization, ${"x".repeat(10_000)}`,
    Array.from({ length: 800 }, (_, i) => `x-h${i}`).join(","),
  ]) {
    const reply = await preflight(url, hostile);
    expectPreflightAnswer(reply);
    expect(names(reply.headers["access-control-allow-headers"]).sort()).toEqual([...REQUIRED_HEADERS].sort());
  }
});

test("a header list with CR or LF is refused on the wire, and never echoed if a request carries one anyway", async () => {
  const fake = await fakeServer();
  const raw = await new Promise<string>((resolve, reject) => {
    const socket = connect(fake.port, "127.0.0.1");
    let answer = "";
    socket.setTimeout(5_000, () => socket.destroy(new Error("no answer within 5 s")));
    socket.on("data", (data) => (answer += data.toString("latin1")));
    socket.on("error", reject);
    socket.on("close", () => resolve(answer));
    socket.end(
      "OPTIONS /v1/agents/agent-a/responses HTTP/1.1\r\nHost: x\r\nAccess-Control-Request-Method: POST\r\n" +
        "Access-Control-Request-Headers: authorization\nSet-Cookie: stolen=1\r\nConnection: close\r\n\r\n",
    );
  });
  expect(raw).toMatch(/^HTTP\/1\.1 400 /);
  expect(raw.toLowerCase()).not.toContain("set-cookie");

  // Node's parser keeps CR and LF out of header values; the handler must not rely on it (it can
  // be mounted behind another server), so hand it such a value directly.
  const app = createFakeApp({ deltaDelayMs: 0 });
  const server = createServer((req, res) => {
    req.headers["access-control-request-headers"] = "authorization\r\nSet-Cookie: stolen=1";
    app.handler(req, res);
  });
  onTestFinished(() => {
    app.close();
    server.closeAllConnections();
    server.close();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const reply = await preflight(
    `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/agents/agent-a/responses`,
  );
  expectPreflightAnswer(reply);
  expect(reply.headers["set-cookie"]).toBeUndefined();
  expect(String(reply.headers["access-control-allow-headers"])).not.toMatch(/stolen|[\r\n]/);
});

test("under a base path the API and the control endpoints carry CORS headers and answer preflights", async () => {
  const fake = await fakeServer({ basePath: "/api/x" });
  const origin = new URL(fake.url).origin;
  const answers = [
    await createResponse(fake.url),
    await createResponse(fake.url, { key: null }),
    await call(origin, "GET", "/__fake/health", {}),
    await call(origin, "DELETE", "/__fake/faults/no-such-rule", {}),
  ];
  expect(answers.map((reply) => reply.status)).toEqual([200, 401, 200, 404]);
  for (const reply of answers) expectCors(reply);
  expectPreflightAnswer(await preflight(`${origin}/api/x/v1/agents/agent-a/responses`));
  expectPreflightAnswer(await preflight(`${origin}/__fake/requests`));
  // The keyless POST is the one violation: the preflights are not.
  expect(fake.clientViolations().flatMap((violation) => violation.requests.map((entry) => entry.method))).toEqual([
    "POST",
  ]);
  expect((await requestLog(origin)).map((entry) => entry.method)).toEqual(["POST", "POST"]);
});

test("with cors off there are no CORS headers and a preflight is not answered as one", async () => {
  const fake = await fakeServer({ cors: false });
  for (const reply of [
    await createResponse(fake.url),
    await createResponse(fake.url, { key: null }),
    await call(fake.url, "GET", "/__fake/health", {}),
  ]) {
    expect(reply.headers["access-control-allow-origin"]).toBeUndefined();
    expect(reply.headers["access-control-expose-headers"]).toBeUndefined();
  }
  const reply = await preflight(`${fake.url}/v1/agents/agent-a/responses`);
  expect(reply.status).not.toBe(204);
  expect(reply.headers["access-control-allow-origin"]).toBeUndefined();
  expect(reply.headers["access-control-allow-headers"]).toBeUndefined();
});
