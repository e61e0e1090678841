/**
 * Benchmark worker: an event stream whose every event carries the moment it was written
 * (`sent`, epoch milliseconds with microsecond fractions, performance.timeOrigin + now(), which
 * processes on one machine share), so a client can tell how long each event took to reach it.
 */
import { createServer, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { serveCalls } from "../worker.ts";

const stamp = () => performance.timeOrigin + performance.now();

function write(res: ServerResponse, type: string, fields: Record<string, unknown>): void {
  if (!res.destroyed) res.write(`event: ${type}\ndata: ${JSON.stringify({ type, ...fields, sent: stamp() })}\n\n`);
}

serveCalls({
  async start({ deltas, delayMs }: { deltas: number; delayMs: number }) {
    const server = createServer((req, res) => {
      req.resume();
      req.on("end", () => {
        res.writeHead(200, { "content-type": "text/event-stream" });
        write(res, "response.created", {});
        let sent = 0;
        const next = () => {
          if (sent++ < deltas) {
            write(res, "response.output_text.delta", { delta: `piece ${sent} ` });
            setTimeout(next, delayMs);
          } else {
            write(res, "response.completed", {});
            res.end();
          }
        };
        setTimeout(next, delayMs);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
  },
});
