/**
 * What a live target's network needs, from the command line as a user runs it: a service
 * behind a private CA (trusted through NODE_EXTRA_CA_CERTS), a proxy from HTTP_PROXY, and a
 * gateway header (--header) whose value never appears in any output or report.
 * tls/ holds a self-signed certificate for 127.0.0.1 and its key, made for this test only
 * (openssl req -x509 -newkey rsa:2048 -nodes -days 36500 -addext "subjectAltName=IP:127.0.0.1,DNS:localhost").
 */
import { readFileSync } from "node:fs";
import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import {
  createServer as createHttpServer,
  request as httpRequest,
  type IncomingMessage,
  type ServerResponse,
} from "node:http";
import { createServer as createHttpsServer } from "node:https";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { createFakeServer } from "../../fake-server/index.ts";
import type { FakeServer } from "../../fake-server/server.ts";
import { acceptConnectTunnels } from "../../test-support/connect-tunnel.ts";
import { runConformanceCli } from "./run-cli.ts";

const TLS_DIR = join(import.meta.dirname, "tls");
const GATEWAY_SECRET = "gw-7f3a9c1e5b2d";
const RUN_LIMIT_MS = 60_000;
const CHEAP = [
  "--api-key",
  "sk-fake-a",
  "--agent-id",
  "agent-a",
  "--only",
  "LIST-9,DEL-2",
  "--header",
  `X-Gateway-Key: ${GATEWAY_SECRET}`,
];

let fake: FakeServer;
const closers: (() => Promise<void>)[] = [];

beforeAll(async () => {
  fake = await createFakeServer({ port: 0 });
  closers.push(() => fake.close());
});

afterAll(async () => {
  for (const close of closers.reverse()) await close();
});

/** Forwards one request to `url` (origin + path) and streams the answer back. */
function forward(req: IncomingMessage, res: ServerResponse, url: string): void {
  const upstream = httpRequest(url, { method: req.method, headers: req.headers }, (answer) => {
    res.writeHead(answer.statusCode ?? 502, answer.headers);
    answer.pipe(res);
  });
  upstream.on("error", () => res.destroy());
  req.pipe(upstream);
}

async function listen(server: import("node:net").Server): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  closers.push(() => new Promise((resolve) => server.close(() => resolve())));
  return (server.address() as AddressInfo).port;
}

async function reportsDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "live-plumbing-"));
  closers.push(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

async function everythingPrinted(run: { stdout: string; stderr: string }, dir: string): Promise<string> {
  const files = await Promise.all((await readdir(dir)).map((name) => readFile(join(dir, name), "utf8")));
  return [run.stdout, run.stderr, ...files].join("\n");
}

describe("a service behind a private CA", () => {
  let url: string;
  beforeAll(async () => {
    const server = createHttpsServer(
      { cert: readFileSync(join(TLS_DIR, "cert.pem")), key: readFileSync(join(TLS_DIR, "key.pem")) },
      (req, res) => forward(req, res, `${fake.url}${req.url ?? "/"}`),
    );
    url = `https://127.0.0.1:${await listen(server)}`;
  });

  test("is reached when NODE_EXTRA_CA_CERTS names the CA, with the gateway header kept secret", async () => {
    const dir = await reportsDir();
    const run = await runConformanceCli(["--base-url", url, ...CHEAP, "--report-dir", dir], RUN_LIMIT_MS, {
      NODE_EXTRA_CA_CERTS: join(TLS_DIR, "cert.pem"),
    });
    expect(run.code, run.stdout + run.stderr).toBe(0);
    expect(await everythingPrinted(run, dir)).not.toContain(GATEWAY_SECRET);
  });

  test("without the CA the run stops before any check, naming the certificate problem", async () => {
    const dir = await reportsDir();
    const run = await runConformanceCli(["--base-url", url, ...CHEAP, "--report-dir", dir], RUN_LIMIT_MS, {
      NODE_EXTRA_CA_CERTS: undefined,
    });
    expect(run.code, run.stdout + run.stderr).toBe(2);
    expect(run.stderr).toMatch(/SELF_SIGNED|self-signed|certificate/i);
    expect(run.stdout + run.stderr).not.toContain(GATEWAY_SECRET);
  });
});

describe("a proxy from HTTP_PROXY", () => {
  /** What the proxy was asked for: a tunnel (CONNECT host:port) or a request in absolute form. */
  const seen: string[] = [];
  let proxyUrl: string;
  beforeAll(async () => {
    const proxy = createHttpServer((req, res) => {
      seen.push(req.url ?? "");
      forward(req, res, req.url ?? "");
    });
    acceptConnectTunnels(proxy, (line) => seen.push(line));
    proxyUrl = `http://127.0.0.1:${await listen(proxy)}`;
  });

  test("carries the run's requests, and NO_PROXY exempts the target", { timeout: 3 * RUN_LIMIT_MS }, async () => {
    const dir = await reportsDir();
    const run = await runConformanceCli(["--base-url", fake.url, ...CHEAP, "--report-dir", dir], RUN_LIMIT_MS, {
      HTTP_PROXY: proxyUrl,
    });
    expect(run.code, run.stdout + run.stderr).toBe(0);
    const target = new URL(fake.url).host;
    expect(seen.length).toBeGreaterThan(0);
    expect(seen.every((asked) => asked === `CONNECT ${target}` || asked.startsWith(fake.url))).toBe(true);
    expect(await everythingPrinted(run, dir)).not.toContain(GATEWAY_SECRET);

    const before = seen.length;
    const exempt = await runConformanceCli(["--base-url", fake.url, ...CHEAP, "--report-dir", dir], RUN_LIMIT_MS, {
      HTTP_PROXY: proxyUrl,
      NO_PROXY: "127.0.0.1",
    });
    expect(exempt.code, exempt.stdout + exempt.stderr).toBe(0);
    expect(seen.length).toBe(before);
  });
});
