/**
 * Benchmark worker: the baseline for the fake's throughput. A bare polka handler on the same
 * path that reads the body, parses it as JSON and answers a fixed body of the fake's size:
 * what any Node JSON endpoint pays, without the fake's checks, idempotency and storage.
 */

import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import polka from "polka";
import { serveCalls } from "../worker.ts";

let server: Server | undefined;

serveCalls({
  async start({ path, body }: { path: string; body: string }) {
    const length = String(Buffer.byteLength(body));
    const app = polka().post(path, (req, res) => {
      const chunks: Buffer[] = [];
      req.on("data", (chunk: Buffer) => chunks.push(chunk));
      req.on("end", () => {
        try {
          JSON.parse(Buffer.concat(chunks).toString("utf8"));
        } catch {
          res.writeHead(400, { "Content-Type": "application/json" }).end('{"error":{"code":"invalid_json"}}');
          return;
        }
        res.writeHead(200, { "Content-Type": "application/json", "Content-Length": length }).end(body);
      });
    });
    const listening = createServer(app.handler as unknown as Parameters<typeof createServer>[0]);
    server = listening;
    await new Promise<void>((resolve) => listening.listen(0, "127.0.0.1", resolve));
    const { port } = listening.address() as AddressInfo;
    return { url: `http://127.0.0.1:${port}` };
  },
  async close() {
    const listening = server;
    if (!listening) return null;
    listening.closeAllConnections();
    await new Promise<void>((resolve) => listening.close(() => resolve()));
    return null;
  },
});
