/**
 * Prism's validation proxy (`prism proxy DOCUMENT UPSTREAM`), as a user runs it in front of a
 * service: it forwards every request, checks every answer against the document, and logs each
 * mismatch as a "Violation:" line. For the tests that hold the published documents to the
 * services they describe.
 */
import { spawn } from "node:child_process";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";

const PRISM_CLI = join(
  dirname(createRequire(import.meta.url).resolve("@stoplight/prism-cli/package.json")),
  "dist/index.js",
);
/** Prism reads and resolves the document before it listens: a few seconds on a busy machine. */
const START_TIMEOUT_MS = 30_000;
const ANSI = /\u001b\[[0-9;]*m/g;

export interface PrismProxy {
  /** Where to send requests: Prism's own address. */
  readonly url: string;
  /** Every line Prism logged so far, without colours or timestamps. */
  lines(): string[];
  close(): Promise<void>;
}

/** Prism's log line without its `[time] ›` prefix. */
const withoutTime = (line: string) =>
  line
    .replace(ANSI, "")
    .replace(/^\[[^\]]*\]\s*›\s*/, "")
    .trim();

export function startPrismProxy(documentPath: string, upstream: string): Promise<PrismProxy> {
  const child = spawn(
    process.execPath,
    [PRISM_CLI, "proxy", documentPath, upstream, "--host", "127.0.0.1", "--port", "0"],
    {
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  const lines: string[] = [];
  let partial = "";
  const read = (chunk: Buffer) => {
    const text = partial + chunk.toString("utf8");
    const parts = text.split("\n");
    partial = parts.pop() ?? "";
    lines.push(...parts.map(withoutTime).filter((line) => line !== ""));
  };
  child.stdout.on("data", read);
  child.stderr.on("data", read);
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const close = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
    await exited;
  };
  return new Promise<PrismProxy>((resolve, reject) => {
    let settled = false;
    const settle = (outcome: () => void) => {
      if (settled) return;
      settled = true;
      clearInterval(poll);
      clearTimeout(timer);
      outcome();
    };
    const fail = (why: string) =>
      settle(
        () =>
          void close().then(() =>
            reject(new Error(`prism proxy ${documentPath} ${upstream} ${why}:\n${lines.join("\n")}`)),
          ),
      );
    const timer = setTimeout(() => fail(`did not listen within ${START_TIMEOUT_MS} ms`), START_TIMEOUT_MS);
    const poll = setInterval(() => {
      const url = lines
        .map((line) => /Prism is listening on (http:\/\/\S+)/.exec(line)?.[1])
        .find((found) => found !== undefined);
      if (url !== undefined) settle(() => resolve({ url, lines: () => [...lines], close }));
    }, 50);
    child.once("exit", (code, signal) => fail(`exited (${code ?? signal}) before it listened`));
  });
}

/** The answers Prism found not to match the document (the requests it judged are the client's business). */
export function responseViolations(lines: readonly string[]): string[] {
  return lines.filter((line) => /Violation: response\b/.test(line)).map((line) => line.replace(/^.*?Violation: /, ""));
}

/** The operation of a forwarded path, as the documents name them. */
function operationOf(path: string): string {
  if (/\/responses\/stream$/.test(path)) return "createResponseStream";
  if (/\/responses$/.test(path)) return "createResponse";
  if (/\/messages$/.test(path)) return "listMessages";
  if (/\/conversations\/[^/]+$/.test(path)) return "deleteConversation";
  return "unknown";
}

/** Each operation and status class Prism saw an answer of, e.g. "deleteConversation 4xx". */
export function answersSeen(lines: readonly string[]): Set<string> {
  const seen = new Set<string>();
  for (const line of lines) {
    const match = /The upstream call to (\S+?)(?:\?\S*)? has returned (\d)\d\d/.exec(line);
    if (match) seen.add(`${operationOf(match[1] ?? "")} ${match[2]}xx`);
  }
  return seen;
}
