import type { ServerResponse } from "node:http";
import { Agent } from "undici";
import { afterEach, describe, expect, test } from "vitest";
import { HarnessError } from "./errors.ts";
import { closedPortUrl, serveHttp, serveTcp, writeFlood, writeParts } from "../test-support/local-servers.ts";
import { Redactor } from "./redact.ts";
import { readStream, type StreamLimits, type StreamReadOptions } from "./stream-reader.ts";
import type { StreamProblemKind, StreamResult } from "./types.ts";

const KEY = "sk-test-secret-key-123";
const redactor = new Redactor([KEY]);
let agent = new Agent();
afterEach(async () => {
  await agent.close();
  agent = new Agent();
});

const LIMITS: StreamLimits = {
  firstEventTimeoutMs: 2_000,
  idleTimeoutMs: 2_000,
  streamTimeoutMs: 5_000,
  maxStreamBytes: 64 * 1024,
  maxResponseBytes: 16 * 1024,
};

function read(url: string, limits: Partial<StreamLimits> = {}, options: StreamReadOptions = {}): Promise<StreamResult> {
  const { origin, pathname } = new URL(url);
  return readStream(
    agent,
    {
      origin,
      path: pathname === "/" ? "/v1/agents/a/responses/stream" : pathname,
      method: "POST",
      headers: { authorization: `Bearer ${KEY}`, accept: "text/event-stream", "content-type": "application/json" },
      body: JSON.stringify({ message: "hi" }),
    },
    { ...LIMITS, ...limits },
    redactor,
    options,
  );
}

const kinds = (result: StreamResult): StreamProblemKind[] => result.problems.map((p) => p.kind);

function startEventStream(res: ServerResponse, contentType = "text/event-stream; charset=utf-8"): void {
  res.writeHead(200, { "content-type": contentType, "cache-control": "no-cache" });
  res.flushHeaders();
}

const created = { type: "response.created" };
const delta = (text: string) => ({ type: "response.output_text.delta", delta: text });
const completed = (text: string) => ({
  type: "response.completed",
  response: { conversation_id: "0b7e2c3a-2f4e-4c1e-9d8a-5b6c7d8e9f01", output_text: text, citations: [] },
});

function sse(name: string | undefined, data: unknown, eol = "\n"): string {
  const lines = name === undefined ? [] : [`event: ${name}`];
  lines.push(`data: ${typeof data === "string" ? data : JSON.stringify(data)}`);
  return lines.join(eol) + eol + eol;
}

function normalStream(eol: string): string {
  return [
    sse("response.created", created, eol),
    sse("response.output_text.delta", delta("Hello, "), eol),
    sse("response.output_text.delta", delta("world"), eol),
    sse("response.completed", completed("Hello, world"), eol),
  ].join("");
}

/** Splits text into pieces of `size` bytes, cutting through lines, terminators and characters. */
function byteSlices(text: string, size: number): Buffer[] {
  const bytes = Buffer.from(text, "utf8");
  const out: Buffer[] = [];
  for (let i = 0; i < bytes.length; i += size) out.push(bytes.subarray(i, i + size));
  return out;
}

describe("a well-formed stream is read event by event", () => {
  test.each([
    ["LF", "\n"],
    ["CR", "\r"],
    ["CRLF", "\r\n"],
  ])("%s line endings, written a few bytes at a time", async (_name, eol) => {
    const server = await serveHttp(async (_req, res) => {
      startEventStream(res);
      await writeParts(res, byteSlices(normalStream(eol), 7));
      res.end();
    });
    const result = await read(server.url);
    expect(result.problems).toEqual([]);
    expect(result.status).toBe(200);
    expect(result.ended).toBe(true);
    expect(result.terminal).toBe("response.completed");
    expect(result.events.map((e) => e.event)).toEqual([
      "response.created",
      "response.output_text.delta",
      "response.output_text.delta",
      "response.completed",
    ]);
    expect(result.events.map((e) => (e.json as { delta?: string }).delta).join("")).toBe("Hello, world");
    expect(result.chunks).toBeGreaterThan(0);
  });

  test("a CRLF pair split across two chunks ends one line, not two", async () => {
    const text = normalStream("\r\n");
    // Cut right between every CR and its LF.
    const parts = text.split(/(?<=\r)(?=\n)/);
    const server = await serveHttp(async (_req, res) => {
      startEventStream(res);
      await writeParts(res, parts);
      res.end();
    });
    const result = await read(server.url);
    expect(result.problems).toEqual([]);
    expect(result.events).toHaveLength(4);
    expect(result.terminal).toBe("response.completed");
  });

  test("a multi-byte character split across chunks arrives whole", async () => {
    const text = "naïve café 🌍 ✓";
    const body = [
      sse("response.created", created),
      sse("response.output_text.delta", delta(text)),
      sse("response.completed", completed(text)),
    ].join("");
    const bytes = Buffer.from(body, "utf8");
    const emoji = bytes.indexOf(Buffer.from("🌍", "utf8"));
    const server = await serveHttp(async (_req, res) => {
      startEventStream(res);
      // Cut inside the 4-byte emoji and inside the 2-byte "ï".
      const i = bytes.indexOf(Buffer.from("ï", "utf8"));
      await writeParts(res, [bytes.subarray(0, i + 1), bytes.subarray(i + 1, emoji + 2), bytes.subarray(emoji + 2)]);
      res.end();
    });
    const result = await read(server.url);
    expect(result.problems).toEqual([]);
    expect((result.events[1]?.json as { delta: string }).delta).toBe(text);
    expect(result.events[1]?.data).not.toContain("\uFFFD");
  });

  test("comments, heartbeats, retry: and id: lines are tolerated and ids are kept", async () => {
    const body = [
      ": connected\n\n",
      "retry: 3000\n",
      "id: 1\n",
      sse("response.created", created),
      ":heartbeat\n",
      "id: 2\n",
      sse("response.output_text.delta", delta("hi")),
      ": another comment\n",
      sse("response.completed", completed("hi")),
    ].join("");
    const server = await serveHttp(async (_req, res) => {
      startEventStream(res);
      await writeParts(res, byteSlices(body, 11));
      res.end();
    });
    const result = await read(server.url);
    expect(result.problems).toEqual([]);
    expect(result.events.map((e) => e.id)).toEqual(["1", "2", undefined]);
    expect(result.terminal).toBe("response.completed");
  });

  test("Content-Type is compared without case and parameters", async () => {
    const server = await serveHttp(async (_req, res) => {
      startEventStream(res, "Text/Event-Stream ; Charset=UTF-8");
      await writeParts(res, [normalStream("\n")]);
      res.end();
    });
    const result = await read(server.url);
    expect(result.problems).toEqual([]);
    expect(result.http).toBeUndefined();
  });

  test("events carry their arrival chunk and time, in order", async () => {
    let releaseRest: () => void = () => {};
    const rest = new Promise<void>((resolve) => (releaseRest = resolve));
    const server = await serveHttp(async (_req, res) => {
      startEventStream(res);
      await writeParts(res, [sse("response.created", created)]);
      await rest;
      await writeParts(res, [sse("response.output_text.delta", delta("x")), sse("response.completed", completed("x"))]);
      res.end();
    });
    // The server holds the rest back until the reader has parsed the first event.
    const result = await read(server.url, {}, { onEvent: (e) => e.event === "response.created" && releaseRest() });
    expect(result.problems).toEqual([]);
    const [first, second, third] = result.events;
    expect(first?.chunk).toBe(0);
    expect(second?.chunk).toBeGreaterThan(first?.chunk ?? Infinity);
    expect(second?.at).toBeGreaterThanOrEqual(first?.at ?? Infinity);
    expect(third?.at).toBeGreaterThanOrEqual(second?.at ?? Infinity);
  });
});

describe("what the target did wrong becomes a problem, never an exception", () => {
  test("an event without an event: line is kept with event undefined", async () => {
    const body = [
      sse("response.created", created),
      sse(undefined, delta("x")),
      sse("response.completed", completed("x")),
    ].join("");
    const server = await serveHttp(async (_req, res) => {
      startEventStream(res);
      await writeParts(res, [body]);
      res.end();
    });
    const result = await read(server.url);
    expect(result.events[1]?.event).toBeUndefined();
    expect(result.events[1]?.json).toEqual(delta("x"));
    expect(result.terminal).toBe("response.completed");
  });

  test("non-JSON data is a problem and reading goes on", async () => {
    const body = [
      sse("response.created", created),
      sse("response.output_text.delta", "not json {"),
      sse("response.completed", completed("x")),
    ].join("");
    const server = await serveHttp(async (_req, res) => {
      startEventStream(res);
      await writeParts(res, [body]);
      res.end();
    });
    const result = await read(server.url);
    expect(kinds(result)).toEqual(["non-json-data"]);
    expect(result.events[1]?.json).toBeUndefined();
    expect(result.events[1]?.data).toBe("not json {");
    expect(result.terminal).toBe("response.completed");
  });

  test("a body that ends without a terminal event is no-terminal", async () => {
    const server = await serveHttp(async (_req, res) => {
      startEventStream(res);
      await writeParts(res, [sse("response.created", created), sse("response.output_text.delta", delta("x"))]);
      res.end();
    });
    const result = await read(server.url);
    expect(kinds(result)).toEqual(["no-terminal"]);
    expect(result.ended).toBe(true);
    expect(result.terminal).toBeUndefined();
  });

  test("a body that ends cleanly inside an event is no-terminal and says so", async () => {
    const server = await serveHttp(async (_req, res) => {
      startEventStream(res);
      await writeParts(res, [sse("response.created", created), 'event: response.completed\ndata: {"type":']);
      res.end();
    });
    const result = await read(server.url);
    expect(kinds(result)).toEqual(["no-terminal"]);
    expect(result.problems[0]?.detail).toContain("unterminated event");
    expect(result.events).toHaveLength(1);
  });

  test("a connection closed mid-event is a connection error without a terminal event", async () => {
    const server = await serveHttp(async (_req, res) => {
      startEventStream(res);
      await writeParts(res, [sse("response.created", created), 'event: response.output_text.delta\ndata: {"ty']);
      res.socket?.destroy();
    });
    const result = await read(server.url);
    expect(kinds(result)).toContain("connection-error");
    expect(result.terminal).toBeUndefined();
    expect(result.ended).toBe(false);
  });

  test("events after the terminal event are after-terminal and still listed", async () => {
    const body =
      normalStream("\n") + sse("response.output_text.delta", delta("late")) + sse("response.completed", completed("x"));
    const server = await serveHttp(async (_req, res) => {
      startEventStream(res);
      await writeParts(res, [body]);
      res.end();
    });
    const result = await read(server.url);
    expect(kinds(result)).toEqual(["after-terminal"]);
    expect(result.events).toHaveLength(6);
    expect(result.terminal).toBe("response.completed");
  });

  test("stray bytes after the terminal event are after-terminal", async () => {
    const server = await serveHttp(async (_req, res) => {
      startEventStream(res);
      await writeParts(res, [normalStream("\n") + ": bye\n"]);
      res.end();
    });
    const result = await read(server.url);
    expect(kinds(result)).toEqual(["after-terminal"]);
    expect(result.ended).toBe(true);
  });

  test("an error event is terminal; blank lines after it are fine", async () => {
    const body =
      sse("response.created", created) +
      sse("error", { type: "error", code: "agent_failed", message: "boom" }) +
      "\n\n";
    const server = await serveHttp(async (_req, res) => {
      startEventStream(res);
      await writeParts(res, [body]);
      res.end();
    });
    const result = await read(server.url);
    expect(result.problems).toEqual([]);
    expect(result.terminal).toBe("error");
  });

  test("a server that keeps the response open after the terminal event is reported", async () => {
    const server = await serveHttp(async (_req, res) => {
      startEventStream(res);
      await writeParts(res, [normalStream("\n")]);
      // Never ends.
    });
    const result = await read(server.url, { idleTimeoutMs: 150 });
    expect(result.problems).toEqual([{ kind: "after-terminal", detail: "response did not end after terminal event" }]);
    expect(result.ended).toBe(false);
    expect(result.terminal).toBe("response.completed");
  });

  test("an HTML page with 200 is not-event-stream and readable as plain HTTP", async () => {
    const server = await serveHttp((_req, res) => {
      res.writeHead(200, { "content-type": "text/html" });
      res.end("<html><body>Welcome</body></html>");
    });
    const result = await read(server.url);
    expect(kinds(result)).toEqual(["not-event-stream"]);
    expect(result.http?.status).toBe(200);
    expect(result.http?.text).toContain("Welcome");
    expect(result.events).toEqual([]);
  });

  test("a JSON error before the stream is not-event-stream with its body parsed", async () => {
    const server = await serveHttp((_req, res) => {
      res.writeHead(409, { "content-type": "application/json" });
      res.end(JSON.stringify({ error: { code: "idempotency_key_reused", message: "x" } }));
    });
    const result = await read(server.url);
    expect(kinds(result)).toEqual(["not-event-stream"]);
    expect(result.status).toBe(409);
    expect(result.http?.json).toEqual({ error: { code: "idempotency_key_reused", message: "x" } });
  });
});

describe("the reader never hangs", () => {
  test("a server that never sends headers hits the first-event timeout", async () => {
    const server = await serveHttp(() => {
      // Never answers.
    });
    const result = await read(server.url, { firstEventTimeoutMs: 150 });
    expect(kinds(result)).toEqual(["first-event-timeout"]);
    expect(result.status).toBe(0);
    expect(result.problems[0]?.detail).toContain("no response headers");
    // The likely cause behind a reverse proxy, with its remedies.
    expect(result.problems[0]?.detail).toContain("a buffering proxy in front of the service may be holding the stream");
    expect(result.problems[0]?.detail).toContain("`proxy_buffering off;`");
    expect(result.problems[0]?.detail).toContain("`X-Accel-Buffering: no`");
  });

  test("a server that sends headers and then nothing hits the first-event timeout", async () => {
    const server = await serveHttp((_req, res) => startEventStream(res));
    const result = await read(server.url, { firstEventTimeoutMs: 150 });
    expect(kinds(result)).toEqual(["first-event-timeout"]);
    expect(result.status).toBe(200);
  });

  test("a server that goes silent mid-stream hits the idle timeout", async () => {
    const server = await serveHttp(async (_req, res) => {
      startEventStream(res);
      await writeParts(res, [sse("response.created", created)]);
    });
    const result = await read(server.url, { idleTimeoutMs: 150 });
    expect(kinds(result)).toEqual(["idle-timeout"]);
    expect(result.events).toHaveLength(1);
  });

  test("a server that never ends, heartbeating forever, hits the total timeout", async () => {
    const server = await serveHttp((_req, res) => {
      startEventStream(res);
      res.write(sse("response.created", created));
      const beat = setInterval(() => res.write(": beat\n\n"), 20);
      res.on("close", () => clearInterval(beat));
    });
    const result = await read(server.url, { streamTimeoutMs: 300 });
    expect(kinds(result)).toEqual(["total-timeout"]);
    expect(result.ended).toBe(false);
  });

  test("a server that sends 50 MB is cut off at the byte cap", async () => {
    let written = 0;
    const server = await serveHttp(async (_req, res) => {
      startEventStream(res);
      written = await writeFlood(res, Buffer.from(`: ${"x".repeat(64 * 1024 - 4)}\n\n`), 50 * 1024 * 1024);
    });
    const result = await read(server.url, { maxStreamBytes: 256 * 1024 });
    expect(kinds(result)).toEqual(["byte-cap"]);
    expect(result.ended).toBe(false);
    expect(written).toBeLessThan(50 * 1024 * 1024);
  });

  test("the caller's signal stops the reader", async () => {
    const server = await serveHttp((_req, res) => startEventStream(res));
    const controller = new AbortController();
    const pending = read(server.url, {}, { signal: controller.signal });
    setTimeout(() => controller.abort(), 50);
    const result = await pending;
    expect(kinds(result)).toEqual(["connection-error"]);
    expect(result.problems[0]?.detail).toContain("cancelled");
  });
});

describe("reaching the target", () => {
  test("a refused connection is a HarnessError, not a problem", async () => {
    const url = await closedPortUrl();
    await expect(read(url)).rejects.toMatchObject({ name: "HarnessError", kind: "unreachable" });
    await expect(read(url)).rejects.toBeInstanceOf(HarnessError);
  });

  test("garbage instead of HTTP is a connection error", async () => {
    const server = await serveTcp((socket) => socket.end("this is not http\r\n\r\n"));
    const result = await read(server.url);
    expect(kinds(result)).toEqual(["connection-error"]);
  });

  test("the transcript never shows the key, even when the server echoes it", async () => {
    const server = await serveHttp(async (req, res) => {
      res.writeHead(200, { "content-type": "text/event-stream", "x-echo": String(req.headers.authorization) });
      await writeParts(res, [
        sse("response.created", { type: "response.created", echo: req.headers.authorization }),
        sse("response.completed", completed("")),
      ]);
      res.end();
    });
    const result = await read(server.url);
    const text = JSON.stringify(result.transcript);
    expect(text).not.toContain(KEY);
    expect(result.transcript.request.headers.authorization).toBe("Bearer sk-t…(redacted)");
    expect(result.transcript.response?.headers["x-echo"]).toBe("Bearer sk-t…(redacted)");
  });
});
