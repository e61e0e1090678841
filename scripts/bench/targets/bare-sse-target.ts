/**
 * Benchmark worker: the baseline for the stream figures. A bare Node handler that reads the
 * body and plays the same script the fake plays (response.created, D deltas, each after
 * the configured delay, response.completed), with nothing else: no checks, idempotency,
 * storage or answer engine. What is left of the fake's figures after this is its own cost.
 */

import { randomUUID } from "node:crypto";
import { createServer, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { EVENT, type StreamEvent } from "../../../schemas/index.ts";
import { serveCalls } from "../worker.ts";

function send(res: ServerResponse, event: StreamEvent): void {
  if (!res.destroyed) res.write(`event: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`);
}

function play(res: ServerResponse, deltas: number, delayMs: number): void {
  const conversationId = randomUUID();
  const pieces = Array.from({ length: deltas }, (_, i) => `piece ${i} `);
  res.writeHead(200, { "content-type": "text/event-stream; charset=utf-8", "cache-control": "no-cache" });
  res.flushHeaders();
  send(res, { type: EVENT.created, conversation_id: conversationId });
  let sent = 0;
  const next = () => {
    if (res.destroyed) return;
    const piece = pieces[sent++];
    if (piece !== undefined) {
      send(res, { type: EVENT.delta, delta: piece });
      setTimeout(next, delayMs);
      return;
    }
    send(res, {
      type: EVENT.completed,
      response: { conversation_id: conversationId, output_text: pieces.join(""), citations: [] },
    });
    res.end();
  };
  setTimeout(next, delayMs);
}

serveCalls({
  async start({ deltas, delayMs }: { deltas: number; delayMs: number }) {
    const listening = createServer((req, res) => {
      req.resume();
      req.on("end", () => play(res, deltas, delayMs));
    });
    await new Promise<void>((resolve) => listening.listen(0, "127.0.0.1", resolve));
    const { port } = listening.address() as AddressInfo;
    return { url: `http://127.0.0.1:${port}` };
  },
});
