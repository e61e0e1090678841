/**
 * A compressing gateway in front of a service, as nginx's `gzip on` or Express's compression()
 * puts one: every answer whose client accepts the coding goes out in it, a stream flushed after
 * each write so its events still arrive one by one. The proxy sees only coded bytes.
 */
import { createServer, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";
import zlib from "node:zlib";
import { request, type Dispatcher } from "undici";

export type GatewayCoding = "gzip" | "deflate" | "br";

export interface RunningGateway {
  url: string;
  close(): Promise<void>;
}

const encoderFor = (coding: GatewayCoding) =>
  coding === "br" ? zlib.createBrotliCompress() : coding === "gzip" ? zlib.createGzip() : zlib.createDeflate();

const accepts = (req: IncomingMessage, coding: GatewayCoding) =>
  String(req.headers["accept-encoding"] ?? "")
    .split(",")
    .some((offer) => offer.trim().split(";")[0]?.toLowerCase() === coding);

async function bodyOf(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

export async function startCompressingGateway(upstream: string, coding: GatewayCoding): Promise<RunningGateway> {
  const server = createServer((req, res) => {
    void (async () => {
      const body = await bodyOf(req);
      const { host: _host, "accept-encoding": _acceptEncoding, ...headers } = req.headers;
      const answer = await request(`${upstream}${req.url ?? "/"}`, {
        method: (req.method ?? "GET") as Dispatcher.HttpMethod,
        headers: headers as Record<string, string>,
        body: body.length > 0 ? body : undefined,
      });
      const {
        "content-length": _length,
        "transfer-encoding": _transfer,
        connection: _connection,
        "keep-alive": _keepAlive,
        ...kept
      } = answer.headers;
      if (answer.statusCode === 204 || !accepts(req, coding)) {
        res.writeHead(answer.statusCode, answer.headers as Record<string, string>);
        for await (const chunk of answer.body) res.write(chunk);
        res.end();
        return;
      }
      res.writeHead(answer.statusCode, {
        ...(kept as Record<string, string>),
        "content-encoding": coding,
        vary: "Accept-Encoding",
      });
      const encoder = encoderFor(coding);
      encoder.pipe(res);
      for await (const chunk of answer.body) {
        encoder.write(chunk);
        await new Promise<void>((resolve) => encoder.flush(() => resolve()));
      }
      encoder.end();
    })().catch(() => res.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
