/**
 * HAR as a browser records it: a page on another origin talks to the fake through real CORS in
 * headless Chromium with Playwright's recordHar on, and the recording is judged offline.
 */
import { readFile, mkdtemp, rm } from "node:fs/promises";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, onTestFinished, test } from "vitest";
import { createFakeServer, type FakeServerOptions } from "../../fake-server/index.ts";
import { launchHeadlessChromium } from "../../test-support/headless-chromium.ts";
import { Redactor } from "../http/redact.ts";
import { readHar } from "./har.ts";
import { createTrafficJudge } from "./judge.ts";
import { brokenOf } from "./proof/judge-through-proxy.ts";

/** What the page does: a create, a stream continuing it (read to the end), a listing, a delete. */
function pageTraffic(fakeUrl: string): Promise<number[]> {
  const headers = { Authorization: "Bearer sk-fake-a", "Content-Type": "application/json" };
  const api = `${fakeUrl}/v1/agents/agent-a`;
  return (async () => {
    const created = await fetch(`${api}/responses`, {
      method: "POST",
      headers: { ...headers, "Idempotency-Key": crypto.randomUUID() },
      body: JSON.stringify({ message: "How do reminders work?" }),
    });
    const { conversation_id: id } = (await created.json()) as { conversation_id: string };
    const streamed = await fetch(`${api}/responses/stream`, {
      method: "POST",
      headers: { ...headers, Accept: "text/event-stream", "Idempotency-Key": crypto.randomUUID() },
      body: JSON.stringify({ message: "And how do I export my data?", conversation_id: id }),
    });
    await streamed.text();
    const listed = await fetch(`${api}/conversations/${id}/messages?page=1&page_size=2`, { headers });
    await listed.text();
    const deleted = await fetch(`${api}/conversations/${id}`, { method: "DELETE", headers });
    return [created.status, streamed.status, listed.status, deleted.status];
  })();
}

async function recordedVerdicts(options: FakeServerOptions) {
  const dir = await mkdtemp(join(tmpdir(), "har-browser-"));
  onTestFinished(() => rm(dir, { recursive: true, force: true }));
  const fake = await createFakeServer({ port: 0, ...options });
  onTestFinished(() => fake.close());
  const page = createServer((_req, res) =>
    res.writeHead(200, { "content-type": "text/html" }).end("<!doctype html><title>app</title>"),
  );
  await new Promise<void>((resolve) => page.listen(0, "127.0.0.1", resolve));
  onTestFinished(() => new Promise<void>((resolve) => page.close(() => resolve())));
  const harPath = join(dir, "recorded.har");
  const browser = await launchHeadlessChromium({ recordHarPath: harPath });
  let statuses: number[];
  try {
    const tab = await browser.context.newPage();
    await tab.goto(`http://127.0.0.1:${(page.address() as AddressInfo).port}/`);
    statuses = await tab.evaluate(pageTraffic, fake.url);
  } finally {
    await browser.close();
  }
  const judge = createTrafficJudge({ target: harPath, redactor: new Redactor(["sk-fake-a"]) });
  for (const exchange of readHar(await readFile(harPath, "utf8"), harPath)) judge.observe(exchange);
  return { statuses, judged: judge.judged, report: judge.report() };
}

test("Chromium's recording of a conforming fake: four operations judged, no violation, streams judged from the recorded body", async () => {
  const { statuses, judged, report } = await recordedVerdicts({});
  expect(statuses).toEqual([200, 200, 200, 204]);
  expect(judged).toBe(4);
  expect(brokenOf(report)).toEqual({});
  const status = (id: string) => report.requirements.find((r) => r.id === id)?.status;
  expect([status("RESP-1"), status("SSE-3"), status("SSE-7"), status("LIST-5")]).toEqual([
    "pass",
    "pass",
    "pass",
    "pass",
  ]);
});

test("Chromium's recording of a broken fake shows the broken requirement", async () => {
  const { report } = await recordedVerdicts({ mutant: "deltas-trimmed" });
  expect(brokenOf(report)).toMatchObject({ "SSE-7": "fail" });
});
