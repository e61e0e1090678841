import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import type { Page } from "playwright-core";
import { afterAll, expect, test } from "vitest";
import { launchHeadlessChromium, type HeadlessChromium } from "../../test-support/headless-chromium.ts";
import { writeHtmlReport } from "./html.ts";
import { HOSTILE_MESSAGE, REQUEST_URL, sampleReport } from "../test-support/sample-report.ts";

// One browser and one page for the file: what a person sees when they open report.html.
// Opened by the first test that needs it, so a browser that cannot start fails every test (never skips one).
let session: Promise<{ browser: HeadlessChromium; page: Page }> | undefined;
let dir: string | undefined;
/** Every request the page made other than loading the report file itself. */
const outside: string[] = [];

async function open(): Promise<{ browser: HeadlessChromium; page: Page }> {
  dir = await mkdtemp(join(tmpdir(), "html-report-browser-"));
  const path = await writeHtmlReport(sampleReport(), dir);
  const browser = await launchHeadlessChromium();
  await browser.context.route("**/*", async (route) => {
    const url = route.request().url();
    if (url.startsWith("file:")) return route.continue();
    outside.push(url);
    return route.abort();
  });
  const page = await browser.context.newPage();
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

test("the result banner says FAIL with the number of failed requirements", async () => {
  const page = await reportPage();
  const banner = page.getByRole("status");
  expect(await banner.isVisible()).toBe(true);
  expect(await banner.innerText()).toMatch(/^FAIL\s+2 requirements failed\.$/);
});

test("a failing requirement shows its spec sentence, failure message and transcript without a click", async () => {
  const page = await reportPage();
  const row = page.locator("#req-IDEM-3");
  expect(await row.getByText("The same key with a different payload returns HTTP 409.").isVisible()).toBe(true);
  expect(await row.getByText(HOSTILE_MESSAGE).isVisible()).toBe(true);
  const request = row.locator(".request pre");
  expect(await request.isVisible()).toBe(true);
  expect(await request.innerText()).toContain(`POST ${REQUEST_URL}`);
  expect(await row.locator(".response pre").innerText()).toMatch(/^HTTP 200\n/);
  const timeline = page.locator("#req-SSE-3 table.timeline");
  expect(await timeline.isVisible()).toBe(true);
  expect(await timeline.locator("tbody tr").count()).toBe(3);
});

test("markup in report data stays text: no injected script ran and no request left the page", async () => {
  const page = await reportPage();
  expect(await page.evaluate(() => (globalThis as { __injected?: unknown }).__injected)).toBeUndefined();
  expect(await page.locator("#req-IDEM-3 .response pre").innerText()).toContain(
    "<script>window.__injected = 'body'</script>",
  );
  expect(outside).toEqual([]);
});

test("the failures filter hides passing and skipped rows, and All brings them back", async () => {
  const page = await reportPage();
  const passing = page.locator("#req-AUTH-1");
  const skipped = page.locator("#req-SCOPE-3");
  const failing = page.locator("#req-IDEM-3");
  expect(await passing.isVisible()).toBe(true);

  await page.getByLabel("Failures only").check();
  expect(await passing.isHidden()).toBe(true);
  expect(await skipped.isHidden()).toBe(true);
  // A family with nothing left to show disappears with its heading.
  expect(await page.locator("#family-scope").isHidden()).toBe(true);
  expect(await failing.isVisible()).toBe(true);
  expect(await page.locator("#req-AUTH-2").isVisible()).toBe(true);

  await page.getByLabel("All requirements").check();
  expect(await passing.isVisible()).toBe(true);
  expect(await page.locator("#family-scope").isVisible()).toBe(true);
});
