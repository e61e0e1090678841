import { request } from "undici";
import { expect, test } from "vitest";
import { RequestLogPage } from "../admin/schemas.ts";
import { call, createResponse } from "../test-support/client.ts";
import { fakeServer } from "../test-support/server.ts";

const preflight = (url: string, path: string, requestedHeaders = "authorization, content-type, idempotency-key, x-fake-session") =>
  request(`${url}${path}`, {
    method: "OPTIONS",
    headers: { origin: "http://app.example", "access-control-request-method": "POST", "access-control-request-headers": requestedHeaders },
  });

test("answers on /v1 and /__fake allow any origin and expose what a client reads, errors included", async () => {
  const fake = await fakeServer();
  for (const reply of [await createResponse(fake.url), await createResponse(fake.url, { key: null }), await call(fake.url, "GET", "/__fake/health", {})]) {
    expect(reply.headers["access-control-allow-origin"]).toBe("*");
    expect(reply.headers["access-control-expose-headers"]).toBe("Idempotent-Replayed, Retry-After, WWW-Authenticate");
  }
});

test("a preflight is 204 without a key, lists the methods and headers, and is neither logged nor a client violation", async () => {
  const fake = await fakeServer();
  for (const path of ["/v1/agents/agent-a/responses/stream", "/v1/agents/agent-a/conversations/x/messages", "/__fake/faults"]) {
    const reply = await preflight(fake.url, path);
    await reply.body.text();
    expect(reply.statusCode).toBe(204);
    expect(reply.headers["access-control-allow-origin"]).toBe("*");
    expect(String(reply.headers["access-control-allow-methods"])).toMatch(/POST/);
    const allowed = String(reply.headers["access-control-allow-headers"]).toLowerCase().split(/\s*,\s*/);
    for (const name of ["authorization", "content-type", "idempotency-key", "accept", "x-fake-fault", "x-fake-session"]) expect(allowed).toContain(name);
  }
  expect(fake.clientViolations()).toEqual([]);
  expect(RequestLogPage.parse((await call(fake.url, "GET", "/__fake/requests", {})).json).requests).toEqual([]);
});

test("a header the browser asks for beyond the list is allowed; a hostile list is not echoed", async () => {
  const fake = await fakeServer();
  const extra = await preflight(fake.url, "/v1/agents/agent-a/responses", "authorization, x-request-id");
  await extra.body.text();
  expect(String(extra.headers["access-control-allow-headers"])).toContain("x-request-id");
  const hostile = await preflight(fake.url, "/v1/agents/agent-a/responses", `authorization, <script>, ${"x".repeat(10_000)}`);
  await hostile.body.text();
  expect(hostile.statusCode).toBe(204);
  expect(String(hostile.headers["access-control-allow-headers"])).not.toContain("script");
});

test("under a base path the API and the control endpoints both answer preflights", async () => {
  const fake = await fakeServer({ basePath: "/api/x" });
  const api = await preflight(new URL(fake.url).origin, "/api/x/v1/agents/agent-a/responses");
  const controls = await preflight(new URL(fake.url).origin, "/__fake/requests");
  await Promise.all([api.body.text(), controls.body.text()]);
  expect([api.statusCode, controls.statusCode]).toEqual([204, 204]);
});

test("with cors off there are no CORS headers and a preflight is not answered as one", async () => {
  const fake = await fakeServer({ cors: false });
  expect((await createResponse(fake.url)).headers["access-control-allow-origin"]).toBeUndefined();
  const reply = await preflight(fake.url, "/v1/agents/agent-a/responses");
  await reply.body.text();
  expect(reply.statusCode).not.toBe(204);
  expect(reply.headers["access-control-allow-origin"]).toBeUndefined();
});
