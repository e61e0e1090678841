import { once } from "node:events";
import { connect, type Socket } from "node:net";
import { expect, test } from "vitest";
import { fakeServer } from "../test-support/server.ts";

const MiB = 1024 * 1024;
const CHUNK = Buffer.alloc(64 * 1024, "x");

const KEYED = `Authorization: Bearer sk-fake-a\r\nContent-Type: application/json\r\nIdempotency-Key: ${crypto.randomUUID()}\r\n`;

/** What a client that sends the whole body before reading reads back: the status line, or the socket error it got. */
async function uploadThenRead(
  url: string,
  bodyBytes: number,
  framing: "length" | "chunked",
  connection: "close" | "keep-alive",
  headers = KEYED,
): Promise<string> {
  const { port } = new URL(url);
  const socket: Socket = connect(Number(port), "127.0.0.1");
  let received = "";
  socket.on("data", (data: Buffer) => (received += data.toString("latin1")));
  const ended = new Promise<string>((resolve) => {
    socket.on("error", (error: NodeJS.ErrnoException) => resolve(`socket error ${error.code ?? error.message}`));
    socket.on("close", () => resolve(received.split("\r\n")[0] ?? ""));
  });
  await once(socket, "connect");
  const length = framing === "length" ? `Content-Length: ${bodyBytes}` : "Transfer-Encoding: chunked";
  socket.write(
    `POST /v1/agents/agent-a/responses HTTP/1.1\r\nHost: 127.0.0.1\r\n${headers}${length}\r\nConnection: ${connection}\r\n\r\n`,
  );
  // Written piece by piece as a client's buffers drain, nothing read meanwhile: the server must not hang up on it.
  for (let sent = 0; sent < bodyBytes && !socket.destroyed; sent += CHUNK.length) {
    const piece = CHUNK.subarray(0, Math.min(CHUNK.length, bodyBytes - sent));
    const framed =
      framing === "chunked" ? [Buffer.from(`${piece.length.toString(16)}\r\n`), piece, Buffer.from("\r\n")] : [piece];
    for (const part of framed) if (!socket.write(part)) await Promise.race([once(socket, "drain"), ended]);
    await new Promise((resolve) => setImmediate(resolve));
  }
  if (!socket.destroyed) socket.write(framing === "chunked" ? "0\r\n\r\n" : "");
  // Keep-alive: the server leaves the connection open, so the client reads the answer and hangs up itself.
  if (connection === "keep-alive") {
    while (!received.includes("\r\n\r\n") && !socket.destroyed) await Promise.race([once(socket, "data"), ended]);
    socket.end();
  }
  return ended;
}

test.each([
  ["Content-Length", "length", "close"],
  ["chunked", "chunked", "close"],
  ["Content-Length, keep-alive", "length", "keep-alive"],
] as const)(
  "a 2 MiB upload (%s) reads its 413 on each of 20 runs",
  async (_, framing, connection) => {
    const fake = await fakeServer();
    const statuses: string[] = [];
    for (let run = 0; run < 20; run++) statuses.push(await uploadThenRead(fake.url, 2 * MiB, framing, connection));
    expect(statuses).toEqual(Array(20).fill("HTTP/1.1 413 Payload Too Large"));
  },
  60_000,
);

// Refused before the body is read (the key, the session, the agent, a header): the answer waits
// until the body is drained, as the 413 does, or the client still sending would be reset.
test.each([
  ["no key", "Content-Type: application/json\r\n", "401 Unauthorized"],
  ["an unknown key", "Authorization: Bearer sk-nobody\r\nContent-Type: application/json\r\n", "401 Unauthorized"],
  ["no Idempotency-Key", "Authorization: Bearer sk-fake-a\r\nContent-Type: application/json\r\n", "400 Bad Request"],
  ["a bad session name", "Authorization: Bearer sk-fake-a\r\nX-Fake-Session: a b\r\n", "400 Bad Request"],
] as const)(
  "a 2 MiB upload with %s reads its refusal on each of 20 runs, framed either way",
  async (_, headers, status) => {
    const fake = await fakeServer();
    const statuses: string[] = [];
    for (let run = 0; run < 10; run++)
      statuses.push(await uploadThenRead(fake.url, 2 * MiB, "length", "close", headers));
    for (let run = 0; run < 10; run++)
      statuses.push(await uploadThenRead(fake.url, 2 * MiB, "chunked", "close", headers));
    expect(statuses).toEqual(Array(20).fill(`HTTP/1.1 ${status}`));
  },
  60_000,
);

test("a body declared far past what is worth draining is refused at once, with Connection: close", async () => {
  const fake = await fakeServer();
  const socket = connect(Number(new URL(fake.url).port), "127.0.0.1");
  await once(socket, "connect");
  let received = "";
  socket.on("data", (data: Buffer) => (received += data.toString("latin1")));
  socket.write(
    `POST /v1/agents/agent-a/responses HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer sk-fake-a\r\n` +
      `Content-Type: application/json\r\nIdempotency-Key: huge\r\nContent-Length: ${64 * MiB}\r\n\r\n`,
  );
  socket.write(CHUNK);
  await once(socket, "close");
  expect(received).toMatch(/^HTTP\/1\.1 413 /);
  expect(received.toLowerCase()).toContain("\r\nconnection: close\r\n");
});
