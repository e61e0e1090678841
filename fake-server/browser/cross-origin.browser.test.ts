/**
 * A browser app on another origin uses the fake as it would the service: real headless Chromium,
 * real CORS (the browser's web security stays on), a page served from a second local server.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { Page } from "playwright-core";
import { afterAll, expect, onTestFinished, test } from "vitest";
import { launchHeadlessChromium, type HeadlessChromium } from "../../test-support/headless-chromium.ts";
import type { RequestLogPage } from "../admin/schemas.ts";
import { startFakeServer } from "../server.ts";

let browser: Promise<HeadlessChromium> | undefined;
let appOrigin: Promise<{ server: Server; url: string }> | undefined;

/** The app's own origin: one empty page, on another port than the fake's. */
async function startAppOrigin(): Promise<{ server: Server; url: string }> {
  const server = createServer((_req, res) => {
    res.writeHead(200, { "content-type": "text/html" });
    res.end("<!doctype html><title>chat app</title>");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/` };
}

/** A page of the app, opened by the first test that needs one: a browser that cannot start fails the test. */
async function appPage(): Promise<Page> {
  browser ??= launchHeadlessChromium();
  appOrigin ??= startAppOrigin();
  const page = await (await browser).context.newPage();
  onTestFinished(() => page.close());
  await page.goto((await appOrigin).url);
  return page;
}

afterAll(async () => {
  await (await browser?.catch(() => undefined))?.close();
  const origin = await appOrigin;
  await new Promise((resolve) => origin?.server.close(resolve));
});

interface PageResults {
  created: { status: number; conversationId: string };
  stream: { status: number; contentType: string | null; chunks: number; deltas: string[]; completedText: string | undefined };
  replay: { status: number; replayed: string | null };
  listed: { status: number; total: number };
  deleted: number;
  refused: { status: number; wwwAuthenticate: string | null };
  control: { status: number; requests: number };
}

/** What the app does, run in the page: every operation, cross-origin, with the headers the spec asks for. */
function runApp(fakeUrl: string): Promise<PageResults> {
  const session = { "X-Fake-Session": "browser-1" };
  const json = { ...session, Authorization: "Bearer sk-fake-a", "Content-Type": "application/json" };
  const api = `${fakeUrl}/v1/agents/agent-a`;
  return (async () => {
    const body = JSON.stringify({ message: "How do reminders work?" });
    const create = await fetch(`${api}/responses`, { method: "POST", headers: { ...json, "Idempotency-Key": "browser-create" }, body });
    const created = (await create.json()) as { conversation_id: string };

    const streamed = await fetch(`${api}/responses/stream`, {
      method: "POST",
      headers: { ...json, Accept: "text/event-stream", "Idempotency-Key": "browser-stream" },
      body: JSON.stringify({ message: "And exports?", conversation_id: created.conversation_id }),
    });
    const reader = (streamed.body as ReadableStream<Uint8Array>).pipeThrough(new TextDecoderStream()).getReader();
    let buffered = "";
    let chunks = 0;
    const deltas: string[] = [];
    let completedText: string | undefined;
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks++;
      buffered += value;
      for (let end = buffered.indexOf("\n\n"); end !== -1; end = buffered.indexOf("\n\n")) {
        const data = buffered.slice(0, end).split("\n").filter((line) => line.startsWith("data:")).map((line) => line.slice(5).trim()).join("\n");
        buffered = buffered.slice(end + 2);
        if (data === "") continue;
        const event = JSON.parse(data) as { type: string; delta?: string; response?: { output_text: string } };
        if (event.type === "response.output_text.delta") deltas.push(event.delta ?? "");
        if (event.type === "response.completed") completedText = event.response?.output_text;
      }
    }

    const again = await fetch(`${api}/responses`, { method: "POST", headers: { ...json, "Idempotency-Key": "browser-create" }, body });
    await again.json();
    const list = await fetch(`${api}/conversations/${created.conversation_id}/messages?page=1&page_size=10`, { headers: json });
    const page = (await list.json()) as { total: number };
    const remove = await fetch(`${api}/conversations/${created.conversation_id}`, { method: "DELETE", headers: json });
    const refused = await fetch(`${api}/conversations/${created.conversation_id}/messages`, { headers: { ...session, Authorization: "Bearer sk-unknown" } });
    await refused.text();
    const control = await fetch(`${new URL(fakeUrl).origin}/__fake/requests?session=browser-1`);
    const log = (await control.json()) as { requests: unknown[] };
    return {
      created: { status: create.status, conversationId: created.conversation_id },
      stream: { status: streamed.status, contentType: streamed.headers.get("content-type"), chunks, deltas, completedText },
      replay: { status: again.status, replayed: again.headers.get("idempotent-replayed") },
      listed: { status: list.status, total: page.total },
      deleted: remove.status,
      refused: { status: refused.status, wwwAuthenticate: refused.headers.get("www-authenticate") },
      control: { status: control.status, requests: log.requests.length },
    };
  })();
}

test("a page on another origin creates, streams chunk by chunk, replays, lists and deletes, and the fake records no client violation", async () => {
  // Deltas 20 ms apart: the page's reader sees them arrive in separate chunks.
  const fake = await startFakeServer({ port: 0, deltaDelayMs: 20 });
  onTestFinished(() => fake.close());
  const page = await appPage();
  const results = await page.evaluate(runApp, fake.url);

  expect(results.created.status).toBe(200);
  expect(results.stream.status).toBe(200);
  expect(results.stream.contentType).toMatch(/^text\/event-stream/);
  expect(results.stream.deltas.length).toBeGreaterThan(1);
  expect(results.stream.chunks).toBeGreaterThan(1);
  expect(results.stream.deltas.join("")).toBe(results.stream.completedText);
  expect(results.replay).toEqual({ status: 200, replayed: "true" });
  expect(results.listed).toEqual({ status: 200, total: 4 });
  expect(results.deleted).toBe(204);
  expect(results.refused.status).toBe(401);
  expect(results.refused.wwwAuthenticate).toMatch(/^Bearer/);
  expect(results.control).toEqual({ status: 200, requests: 6 });

  // The preflights were answered before the key check and the observer: nothing to report.
  expect(fake.clientViolations({ session: "browser-1" })).toEqual([]);
  expect(fake.clientViolations()).toEqual([]);
  const log = (await (await fetch(new URL("/__fake/requests?session=browser-1", fake.url))).json()) as RequestLogPage;
  expect(log.requests.map((request) => request.method)).toEqual(["POST", "POST", "POST", "GET", "DELETE", "GET"]);
  expect(log.requests.every((request) => request.session === "browser-1")).toBe(true);
  const defaultLog = (await (await fetch(new URL("/__fake/requests", fake.url))).json()) as RequestLogPage;
  expect(defaultLog.requests).toEqual([]);
});

test("with CORS off the same page cannot call the fake: the browser blocks it", async () => {
  const fake = await startFakeServer({ port: 0, cors: false });
  onTestFinished(() => fake.close());
  const page = await appPage();
  await expect(page.evaluate(runApp, fake.url)).rejects.toThrow(/Failed to fetch/);
});
