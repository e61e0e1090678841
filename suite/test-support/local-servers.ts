/**
 * Hand-built local servers for the harness's own tests: each listens on 127.0.0.1, port 0,
 * and is closed (with every open connection) when the test that started it finishes.
 * Concurrent tests pass their own context's onTestFinished, since the global one cannot
 * tell which of several running tests is meant.
 */

import { createServer as createHttpServer, type IncomingMessage, type ServerResponse } from "node:http";
import { createServer as createNetServer, type Socket } from "node:net";
import type { AddressInfo } from "node:net";
import { onTestFinished } from "vitest";

export interface LocalServer {
  url: string;
  /** Every request the server saw, in order. */
  requests: { method: string; url: string; headers: IncomingMessage["headers"]; body: string }[];
}

/** An HTTP server whose handler gets the request with its body already read. */
export type Register = (cleanup: () => Promise<void>) => void;

export async function serveHttp(
  handler: (req: IncomingMessage, res: ServerResponse, body: string) => unknown,
  register: Register = onTestFinished,
): Promise<LocalServer> {
  const requests: LocalServer["requests"] = [];
  const server = createHttpServer((req, res) => {
    const parts: Buffer[] = [];
    req.on("data", (part: Buffer) => parts.push(part));
    req.on("end", () => {
      const body = Buffer.concat(parts).toString("utf8");
      requests.push({ method: req.method ?? "", url: req.url ?? "", headers: req.headers, body });
      void Promise.resolve(handler(req, res, body)).catch(() => res.destroy());
    });
  });
  server.keepAliveTimeout = 1000;
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  register(async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, requests };
}

/** A TCP server that answers each connection with `onConnection` (for bytes that are not HTTP). */
export async function serveTcp(
  onConnection: (socket: Socket) => void,
  register: Register = onTestFinished,
): Promise<{ url: string }> {
  const sockets = new Set<Socket>();
  const server = createNetServer((socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
    socket.on("error", () => socket.destroy());
    onConnection(socket);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  register(async () => {
    for (const socket of sockets) socket.destroy();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}` };
}

/** A URL on which nothing listens: a port that was free a moment ago. */
export async function closedPortUrl(): Promise<string> {
  const server = createNetServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `http://127.0.0.1:${port}`;
}

/** Writes `parts` one write at a time, each after the previous one was flushed to the socket. */
export async function writeParts(res: ServerResponse, parts: readonly (string | Buffer)[]): Promise<void> {
  for (const part of parts) {
    if (res.destroyed) return;
    await new Promise<void>((resolve) => res.write(part, () => resolve()));
  }
}

/** Writes `block` until `total` bytes went out or the client went away; returns the bytes written. */
export async function writeFlood(res: ServerResponse, block: Buffer, total: number): Promise<number> {
  let written = 0;
  while (written < total && !res.destroyed) {
    written += block.length;
    if (!res.write(block)) {
      await new Promise<void>((resolve) => {
        const done = () => {
          res.off("drain", done);
          res.off("close", done);
          resolve();
        };
        res.on("drain", done);
        res.on("close", done);
      });
    }
  }
  if (!res.destroyed) res.end();
  return written;
}

/** Client limits for tests against these servers: short, with room for a busy machine. */
export const TEST_CLIENT_LIMITS = {
  requestTimeoutMs: 2_000,
  firstEventTimeoutMs: 2_000,
  idleTimeoutMs: 2_000,
  streamTimeoutMs: 5_000,
  maxResponseBytes: 16 * 1024,
  maxStreamBytes: 64 * 1024,
} as const;
