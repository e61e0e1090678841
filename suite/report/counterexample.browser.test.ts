import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import type { Page } from "playwright-core";
import { afterAll, expect, test } from "vitest";
import { launchHeadlessChromium, type HeadlessChromium } from "../../test-support/headless-chromium.ts";
import { writeHtmlReport } from "./html.ts";
import { counterexampleReport } from "../test-support/sample-counterexample.ts";

// A report with an interaction counterexample, opened as a person opens report.html: the lanes
// must be drawn under the page's own Content-Security-Policy, not just written into the markup.
let session: Promise<{ browser: HeadlessChromium; page: Page }> | undefined;
let dir: string | undefined;
/** Everything the page logged to its console (Chromium logs refused inline styles there). */
const consoleLines: string[] = [];

async function open(): Promise<{ browser: HeadlessChromium; page: Page }> {
  dir = await mkdtemp(join(tmpdir(), "html-counterexample-browser-"));
  const path = await writeHtmlReport(counterexampleReport(), dir);
  const browser = await launchHeadlessChromium();
  const page = await browser.context.newPage();
  page.on("console", (message) => consoleLines.push(`${message.type()}: ${message.text()}`));
  page.on("pageerror", (error) => consoleLines.push(`pageerror: ${error.message}`));
  await page.goto(pathToFileURL(path).href);
  return { browser, page };
}

async function reportPage(): Promise<Page> {
  session ??= open();
  return (await session).page;
}

afterAll(async () => {
  const opened = await session?.catch(() => undefined);
  await opened?.browser.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

/** Where operation #n's bar is drawn, left and right edge in pixels. */
async function bar(page: Page, n: number): Promise<{ left: number; right: number }> {
  const box = await page
    .locator(".counterexample .op")
    .filter({ hasText: new RegExp(`^#${n}\\b`) })
    .boundingBox();
  if (!box) throw new Error(`operation #${n} is not drawn`);
  return { left: box.x, right: box.x + box.width };
}

test("overlapping operations are drawn overlapping, sequential ones apart, in proportion to their time", async () => {
  const page = await reportPage();
  const [first, second, third, fourth] = [
    await bar(page, 1),
    await bar(page, 2),
    await bar(page, 3),
    await bar(page, 4),
  ];
  // #2 (10–60 ms) and #3 (20–50 ms) ran at the same time: #3's bar lies within #2's.
  expect(third.left).toBeGreaterThan(second.left);
  expect(third.right).toBeLessThan(second.right);
  // #1 (0–5 ms) ended before #2 started, and #4 (70–72 ms) started after everything ended.
  expect(first.right).toBeLessThanOrEqual(second.left);
  expect(fourth.left).toBeGreaterThanOrEqual(second.right);
  // 50 ms against 30 ms.
  expect((second.right - second.left) / (third.right - third.left)).toBeCloseTo(50 / 30, 1);
});

test("the console shows no Content-Security-Policy error, nor any other", async () => {
  await reportPage();
  expect(consoleLines.filter((line) => /Content Security Policy|error/i.test(line))).toEqual([]);
});

test("the transcript is shown once, as preformatted lines, and the reason is its headline", async () => {
  const page = await reportPage();
  const row = page.locator("#req-RESP-2");
  const text = await row.innerText();
  expect(text.match(/#4 lane 0 GET/g)).toHaveLength(1);
  expect(await row.locator("pre.operations").innerText()).toMatch(
    /^#1 lane 0 POST .*\n#2 lane 1 POST .*\n#3 lane 2 POST .*\n#4 lane 0 GET .*$/,
  );
  const reason = await row.locator("p.reason").innerText();
  expect(reason).toBe(
    "Reason: the interaction property (3 sequence(s), 41 operations) found RESP-2: #4 listed conversation C1 in full (4 messages) without the exchange of #3 (in full below)",
  );
});
