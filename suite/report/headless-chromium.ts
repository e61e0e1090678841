import { existsSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chromium, type BrowserContext } from "playwright-core";

/** Debian's Chromium; .ci/run installs it before the tests. */
export const CHROMIUM_PATH = "/usr/bin/chromium";

const ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

export interface HeadlessChromium {
  context: BrowserContext;
  /** Closes the browser and removes its profile folder. */
  close(): Promise<void>;
}

/**
 * Starts headless Chromium with a fresh profile. Throws (so a test fails, never skips) when
 * Chromium is not installed, since CI installs it.
 */
export async function launchHeadlessChromium(): Promise<HeadlessChromium> {
  if (!existsSync(CHROMIUM_PATH)) {
    throw new Error(`Chromium is missing at ${CHROMIUM_PATH}: install it with "apt-get install -y chromium" (.ci/run does this before npm test).`);
  }
  const profile = await mkdtemp(join(tmpdir(), "report-chromium-"));
  try {
    // Playwright passes the profile folder to Chromium as --user-data-dir.
    const context = await chromium.launchPersistentContext(profile, { executablePath: CHROMIUM_PATH, headless: true, args: ARGS });
    return {
      context,
      close: async () => {
        await context.close();
        await rm(profile, { recursive: true, force: true });
      },
    };
  } catch (error) {
    await rm(profile, { recursive: true, force: true });
    throw error;
  }
}
