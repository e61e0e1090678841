import { constants } from "node:fs";
import { access, mkdir, mkdtemp, rm, rmdir, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as delay } from "node:timers/promises";
import bundled from "@sparticuz/chromium";
import { chromium, type BrowserContext } from "playwright-core";

// Headless Chromium for the project's browser tests. By default the browser comes from npm
// (@sparticuz/chromium, unpacked to the temp folder on first use), so `npm test` needs no
// system package; CHROMIUM_PATH names an installed Chromium to use instead.

const CHROMIUM_PATH_VARIABLE = "CHROMIUM_PATH";

/** Flags for any Chromium (Playwright adds more of its own, with --headless and --no-sandbox). */
const COMMON_ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

/** A desktop build has no GPU to use here. */
const SYSTEM_ARGS = [...COMMON_ARGS, "--disable-gpu"];

/**
 * The bundled build's recommended flags, without those that make a page behave unlike in a
 * user's browser (no same-origin policy or CORS, mixed content, no site isolation), that would
 * replace Playwright's own feature lists, or that only suit AWS Lambda's process limits.
 */
const NOT_FOR_TESTS = new Set([
  "--disable-web-security",
  "--allow-running-insecure-content",
  "--disable-site-isolation-trials",
  "--disable-features",
  "--enable-features",
  "--single-process",
  "--no-zygote",
  "--headless",
]);
const BUNDLED_ARGS = [
  ...new Set([...bundled.args.filter((arg) => !NOT_FOR_TESTS.has(arg.split("=")[0] ?? arg)), ...COMMON_ARGS]),
];

/** Held while a process unpacks the bundled browser. */
const UNPACK_LOCK = join(tmpdir(), "chromium.unpack-lock");
/** Unpacking takes a few seconds; stay well inside vitest's 30 s test timeout. */
const UNPACK_WAIT_MS = 20_000;

export interface HeadlessChromium {
  context: BrowserContext;
  /** Closes the browser and removes its profile folder. */
  close(): Promise<void>;
}

interface Choice {
  /** What was tried, for the error message. */
  what: string;
  executablePath(): Promise<string>;
  args: string[];
  /** What to do instead when it does not start. */
  otherwise: string;
}

/**
 * Starts headless Chromium with a fresh profile (recording a HAR to `recordHarPath` if given). Throws, naming the browser it tried, when that
 * browser cannot start: a test that needs a browser fails, never skips.
 */
export async function launchHeadlessChromium(options: { recordHarPath?: string } = {}): Promise<HeadlessChromium> {
  const choice = await chooseChromium();
  const profile = await mkdtemp(join(tmpdir(), "headless-chromium-"));
  try {
    const executablePath = await choice.executablePath();
    // Playwright passes the profile folder to Chromium as --user-data-dir.
    // A HAR, when asked for, is written as the context closes, with every body in it.
    const recordHar =
      options.recordHarPath === undefined
        ? {}
        : { recordHar: { path: options.recordHarPath, content: "embed" as const } };
    const context = await chromium.launchPersistentContext(profile, {
      executablePath,
      headless: true,
      args: choice.args,
      ...recordHar,
    });
    return {
      context,
      close: async () => {
        await context.close();
        await rm(profile, { recursive: true, force: true });
      },
    };
  } catch (error) {
    await rm(profile, { recursive: true, force: true });
    const reason = error instanceof Error ? error.message : String(error);
    throw new Error(`Headless Chromium did not start: tried ${choice.what}. ${choice.otherwise}\n${reason}`, {
      cause: error,
    });
  }
}

async function chooseChromium(): Promise<Choice> {
  const configured = process.env[CHROMIUM_PATH_VARIABLE];
  if (!configured) {
    const unpacked = join(tmpdir(), "chromium");
    return {
      what: `the Chromium of the npm package @sparticuz/chromium, unpacked to ${unpacked}`,
      executablePath: unpackBundled,
      args: BUNDLED_ARGS,
      otherwise: `If an earlier unpack was interrupted, delete ${unpacked}; or set ${CHROMIUM_PATH_VARIABLE} to an installed Chromium.`,
    };
  }
  if (!(await isExecutableFile(configured))) {
    throw new Error(
      `${CHROMIUM_PATH_VARIABLE}=${configured} is not an executable file: point it at a Chromium binary, or unset it to use the one from npm.`,
    );
  }
  return {
    what: `${CHROMIUM_PATH_VARIABLE}=${configured}`,
    executablePath: async () => configured,
    args: SYSTEM_ARGS,
    otherwise: `Unset ${CHROMIUM_PATH_VARIABLE} to use the Chromium from npm.`,
  };
}

async function isExecutableFile(path: string): Promise<boolean> {
  try {
    await access(path, constants.X_OK);
    return (await stat(path)).isFile();
  } catch {
    return false;
  }
}

/**
 * The bundled browser's path. executablePath() reuses its binary as soon as the file exists,
 * even while another test process is still writing it, so processes unpack one at a time.
 */
async function unpackBundled(): Promise<string> {
  const deadline = Date.now() + UNPACK_WAIT_MS;
  while (!(await tryMkdir(UNPACK_LOCK))) {
    if (Date.now() > deadline) {
      throw new Error(
        `${UNPACK_LOCK} was held for ${UNPACK_WAIT_MS / 1000} s; if no test is running, an unpack was interrupted: delete it.`,
      );
    }
    await delay(100);
  }
  try {
    return await bundled.executablePath();
  } finally {
    await rmdir(UNPACK_LOCK);
  }
}

async function tryMkdir(path: string): Promise<boolean> {
  try {
    await mkdir(path);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "EEXIST") return false;
    throw error;
  }
}
