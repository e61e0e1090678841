/**
 * A browser app on another origin uses the fake as it would the service: real headless Chromium
 * with its web security on, a page and script served by a second local server (app-page.js).
 */
import type { Page } from "playwright-core";
import { afterAll, expect, onTestFinished, test } from "vitest";
import { launchHeadlessChromium, type HeadlessChromium } from "../../test-support/headless-chromium.ts";
import { RequestLogPage } from "../request-log/schemas.ts";
import { control } from "../test-support/control-client.ts";
import { createFakeServer, type FakeServer, type FakeServerOptions } from "../index.ts";
import { createResponse } from "../test-support/client.ts";
import { startAppOrigin, type AppOrigin } from "../test-support/browser/app-origin.ts";
import type { ChatApp } from "../test-support/browser/chat-app.ts";

const PAGE_TIMEOUT_MS = 10_000;
const SESSION = "browser-1";

// One browser and one app origin for the file, started by the first test that needs them: a
// browser that cannot start fails every test with the launcher's message (never a skip).
let browser: Promise<HeadlessChromium> | undefined;
let appOrigin: Promise<AppOrigin> | undefined;

afterAll(async () => {
  await (await browser?.catch(() => undefined))?.close();
  await (await appOrigin?.catch(() => undefined))?.close();
});

async function appPage(): Promise<Page> {
  browser ??= launchHeadlessChromium();
  appOrigin ??= startAppOrigin();
  const page = await (await browser).context.newPage();
  onTestFinished(() => page.close());
  page.setDefaultTimeout(PAGE_TIMEOUT_MS);
  await page.goto((await appOrigin).url, { timeout: PAGE_TIMEOUT_MS });
  await page.waitForFunction(() => "chatApp" in globalThis, undefined, { timeout: PAGE_TIMEOUT_MS });
  return page;
}

async function fakeServer(options: FakeServerOptions = {}): Promise<FakeServer> {
  const fake = await createFakeServer({ host: "127.0.0.1", port: 0, ...options });
  onTestFinished(() => fake.close());
  return fake;
}

const app = (page: Page) => ({
  converse: (fakeUrl: string, session: string | null, run: string) =>
    page.evaluate(
      ([url, name, id]) => (globalThis as unknown as { chatApp: ChatApp }).chatApp.converse(url, name, id),
      [fakeUrl, session, run] as const,
    ),
  createOnce: (fakeUrl: string, session: string | null, key: string) =>
    page.evaluate(
      ([url, name, id]) => (globalThis as unknown as { chatApp: ChatApp }).chatApp.createOnce(url, name, id),
      [fakeUrl, session, key] as const,
    ),
  requestLog: (fakeUrl: string, session: string) =>
    page.evaluate(
      ([origin, name]) => (globalThis as unknown as { chatApp: ChatApp }).chatApp.requestLog(origin, name),
      [new URL(fakeUrl).origin, session] as const,
    ),
});

/**
 * What the browser's network layer did, from DevTools: the preflights it sent and the CORS
 * errors it raised. Its events may come after the page's call has returned: read them with expect.poll.
 */
async function watchNetwork(page: Page): Promise<{ preflights: string[]; corsErrors: string[] }> {
  const seen = { preflights: [] as string[], corsErrors: [] as string[] };
  const devtools = await page.context().newCDPSession(page);
  devtools.on("Network.requestWillBeSent", (event) => {
    if (event.request.method === "OPTIONS") seen.preflights.push(new URL(event.request.url).pathname);
  });
  devtools.on("Network.loadingFailed", (event) => {
    if (event.corsErrorStatus) seen.corsErrors.push(event.corsErrorStatus.corsError);
  });
  await devtools.send("Network.enable");
  return seen;
}

const POLL = { timeout: 5_000, interval: 50 };

async function requestLog(fake: FakeServer, session?: string) {
  return RequestLogPage.parse((await control(fake.url, "GET", "/__fake/requests", undefined, session)).json).requests;
}

test("a page on another origin creates, streams chunk by chunk, replays, lists and deletes as the spec says, with no client violation", async () => {
  // Deltas 200 ms apart, so a reader that gets the stream as it is written sees them in several
  // chunks. At 30 ms, a page stalled by a loaded machine (a fresh clone's npm test) read all five at once.
  const fake = await fakeServer({ deltaDelayMs: 200 });
  const deltas = ["Exports ", "are CSV files, ", "sent by email ", "within ", "a minute."];
  const rule = await control(
    fake.url,
    "POST",
    "/__fake/answers",
    { match: { message_contains: "exports" }, answer: { text: deltas.join(""), deltas } },
    SESSION,
  );
  expect(rule.status).toBe(201);
  const page = await appPage();
  const network = await watchNetwork(page);

  const results = await app(page).converse(fake.url, SESSION, "run-1");

  const { created, stream, replay, listed, deleted, deletedAgain, refused } = results;
  expect(created.status).toBe(200);
  expect(created.contentType).toMatch(/^application\/json/);
  expect(created.replayed).not.toBe("true");
  expect(created.body).toEqual({
    conversation_id: expect.stringMatching(/^[0-9a-f-]{36}$/),
    response: expect.any(String),
    citations: expect.any(Array),
  });
  const conversationId = created.body.conversation_id;

  expect(stream.status).toBe(200);
  expect(stream.contentType).toMatch(/^text\/event-stream/);
  expect(stream.unfinished).toBe("");
  const types = stream.events.map((event) => event.data.type);
  expect(types).toEqual(["response.created", ...deltas.map(() => "response.output_text.delta"), "response.completed"]);
  for (const event of stream.events) expect(event.event).toBe(event.data.type);
  const received = stream.events.filter((event) => event.data.type === "response.output_text.delta");
  expect(received.map((event) => event.data.delta)).toEqual(deltas);
  const completed = stream.events.at(-1)?.data.response;
  expect(completed).toEqual({
    conversation_id: conversationId,
    output_text: deltas.join(""),
    citations: expect.any(Array),
  });
  // The deltas reached the page in more than one read: the body was not buffered to its end.
  expect(new Set(received.map((event) => event.chunk)).size).toBeGreaterThan(1);

  expect(replay).toEqual({ status: 200, replayed: "true", body: created.body });
  expect(listed.status).toBe(200);
  expect(listed.body).toMatchObject({
    conversation: { id: conversationId },
    page: 1,
    page_size: 10,
    total: 4,
    has_more: false,
  });
  expect(listed.body.items).toHaveLength(4);
  expect(deleted).toEqual({ status: 204, text: "" });
  expect(deletedAgain.status).toBe(404);
  expect(JSON.stringify(deletedAgain.body)).toContain("conversation_not_found");
  expect(refused.status).toBe(401);
  expect(refused.wwwAuthenticate).toMatch(/^Bearer/);

  // The browser preflighted the calls. A preflight carries no session header and no key, so had one
  // reached the API it would show in the default session: a log entry and a CLIENT-1 violation.
  await expect.poll(() => network.preflights, POLL).toContain("/v1/agents/agent-a/responses/stream");
  expect(network.preflights.every((path) => path.startsWith("/v1/agents/agent-a/"))).toBe(true);
  expect(network.corsErrors).toEqual([]);
  expect(fake.clientViolations({ session: SESSION })).toEqual([]);
  expect(fake.clientViolations()).toEqual([]);
  expect(await requestLog(fake)).toEqual([]);
  const expected = ["POST", "POST", "POST", "GET", "DELETE", "DELETE", "GET"];
  expect((await requestLog(fake, SESSION)).map((entry) => entry.method)).toEqual(expected);

  // The control endpoints answer the page too.
  const fromPage = await app(page).requestLog(fake.url, SESSION);
  expect(fromPage.status).toBe(200);
  expect(fromPage.requests.map((entry) => entry.method)).toEqual(expected);
});

test("requests with X-Fake-Session land in that session; those without stay in the default one", async () => {
  const fake = await fakeServer({ deltaDelayMs: 0 });
  const page = await appPage();

  const inSession = await app(page).createOnce(fake.url, SESSION, "in-session");
  const outside = await app(page).createOnce(fake.url, null, "no-session");
  expect([inSession, outside]).toEqual([
    expect.objectContaining({ status: 200 }),
    expect.objectContaining({ status: 200 }),
  ]);

  const path = "/v1/agents/agent-a/responses";
  expect((await app(page).requestLog(fake.url, SESSION)).requests).toEqual([
    { session: SESSION, method: "POST", path, status: 200 },
  ]);
  expect((await app(page).requestLog(fake.url, "default")).requests).toEqual([
    { session: "default", method: "POST", path, status: 200 },
  ]);
  expect(fake.sessions()).toEqual(["default", SESSION]);
  expect(fake.clientViolations({ session: SESSION })).toEqual([]);
  expect(fake.clientViolations()).toEqual([]);
});

test("with CORS off the same page's create fails in the browser, though the fake answers it outside a browser", async () => {
  const fake = await fakeServer({ cors: false });
  const page = await appPage();
  const network = await watchNetwork(page);

  const result = await app(page).createOnce(fake.url, null, "blocked");

  expect(result).toEqual({ error: expect.stringMatching(/^TypeError: Failed to fetch/) });
  await expect.poll(() => network.corsErrors, POLL).toEqual(["PreflightMissingAllowOriginHeader"]);
  // The browser stopped at the preflight: the fake saw it (an OPTIONS without a key) and no create.
  expect((await requestLog(fake)).map((entry) => entry.method)).toEqual(["OPTIONS"]);
  const direct = await createResponse(fake.url, {
    idempotencyKey: "blocked",
    body: { message: "Hello from the page" },
  });
  expect(direct.status).toBe(200);
});
