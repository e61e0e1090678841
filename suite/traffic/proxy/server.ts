/**
 * The conformance proxy's forwarding: every request goes to the upstream as it came (path and
 * query appended to the upstream URL, headers but the hop-by-hop ones, the body streamed as it
 * arrives), and every response byte goes back as soon as it arrives: an SSE event leaves the
 * proxy when it reached it. A copy of each exchange is handed to `onExchange` once it is over,
 * off the forwarding path; the proxy adds no header (not even Date) and never waits for a verdict.
 * An exchange still running when the proxy stops is cut, and handed over as far as it went,
 * marked incomplete, before `close` returns.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { Transform } from "node:stream";
import type { AddressInfo } from "node:net";
import { request as upstreamRequest, type Dispatcher } from "undici";
import { dispatcherFromEnvironment } from "../../http/client.ts";
import type { ObservedChunk, ObservedExchange } from "../exchange.ts";
import { decodeBody } from "./content-coding.ts";

export interface ProxyOptions {
  /** The service's base URL, base path included (e.g. https://api.example/agents-service). */
  upstream: string;
  host: string;
  port: number;
  /** Called with each finished exchange, on a later turn of the event loop. */
  onExchange: (exchange: ObservedExchange) => void;
}

export interface RunningProxy {
  url: string;
  /**
   * Stops accepting, lets running exchanges end for up to `graceMs`, then cuts the rest; resolves
   * once every exchange, the cut ones included, was handed to `onExchange`.
   */
  close(graceMs: number): Promise<void>;
}

// RFC 9110 §7.6.1: meaningful for one connection only; everything else goes through as it is.
const HOP_BY_HOP = new Set([
  "connection",
  "keep-alive",
  "proxy-authenticate",
  "proxy-authorization",
  "proxy-connection",
  "te",
  "trailer",
  "transfer-encoding",
  "upgrade",
  "host",
]);
/** What a copy keeps of one body; past it the copy is marked incomplete and not judged. */
const MAX_COPY_BYTES = 8 * 1024 * 1024;
/** How long a cut exchange may take to unwind and be handed over; a bound, never reached in practice. */
const HANDOVER_MS = 2_000;
const STOPPED = "the proxy stopped before the exchange ended";

function flatHeaders(
  headers: IncomingMessage["headers"] | Record<string, string | string[] | undefined>,
): Record<string, string> {
  const flat: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined) continue;
    flat[name.toLowerCase()] = Array.isArray(value) ? value.join(", ") : value;
  }
  return flat;
}

function forwardable(headers: Record<string, string | string[] | undefined>): Record<string, string | string[]> {
  const named = new Set(
    String(headers["connection"] ?? "")
      .toLowerCase()
      .split(",")
      .map((name) => name.trim()),
  );
  const kept: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(headers)) {
    const lower = name.toLowerCase();
    if (value !== undefined && !HOP_BY_HOP.has(lower) && !named.has(lower)) kept[lower] = value;
  }
  return kept;
}

/** A request body on its way upstream, and the copy kept of it (up to MAX_COPY_BYTES). */
class RequestBody {
  readonly stream: Transform;
  private readonly copy: Buffer[] = [];
  private bytes = 0;
  private ended = false;

  constructor(req: IncomingMessage) {
    this.stream = new Transform({
      transform: (chunk: Buffer, _encoding, done) => {
        if (this.bytes + chunk.length <= MAX_COPY_BYTES) this.copy.push(chunk);
        this.bytes += chunk.length;
        done(null, chunk);
      },
      flush: (done) => {
        this.ended = true;
        done();
      },
    });
    req.on("error", (error) => this.stream.destroy(error));
    req.pipe(this.stream);
  }

  /** The bytes sent, or undefined when they passed what a copy keeps or did not all arrive. */
  copied(): Buffer | undefined {
    return this.ended && this.bytes <= MAX_COPY_BYTES ? Buffer.concat(this.copy) : undefined;
  }
}

/** Whether the request has a body to forward (RFC 9112 §6.3: a length above 0, or chunked). */
function hasBody(req: IncomingMessage): boolean {
  return req.headers["transfer-encoding"] !== undefined || Number(req.headers["content-length"] ?? 0) > 0;
}

export async function startProxy(options: ProxyOptions): Promise<RunningProxy> {
  const upstream = new URL(options.upstream);
  const basePath = upstream.pathname.replace(/\/+$/, "");
  // Plenty of connections: 100 and more streams at once is the normal case for a chat service.
  // bodyTimeout 0: a stream may pause as long as the service likes; the client decides when to give up.
  // Through HTTPS_PROXY / HTTP_PROXY when set, as the suite's own requests go.
  const dispatcher = dispatcherFromEnvironment({ connections: 512, bodyTimeout: 0, headersTimeout: 0 });
  let sequence = 0;
  const running = new Set<ServerResponse>();
  /** Each exchange until it was handed over: the stop waits for them, so nothing that arrived is lost. */
  const handovers = new Set<Promise<void>>();
  /** Set when the stop cuts the connections still open: what they carried ends "stopped", not "the client hung up". */
  let cutting = false;

  async function forward(req: IncomingMessage, res: ServerResponse): Promise<void> {
    res.sendDate = false;
    running.add(res);
    // Whole milliseconds, as the HAR file records it, so the HAR judged offline sees the times
    // the live judge saw; the judge takes an overlap under a millisecond in recorded order.
    // The duration keeps its fraction.
    const started = performance.now();
    const startedAt = Math.floor(performance.timeOrigin + started);
    const number = sequence++;
    const requestHeaders = flatHeaders(req.headers);
    const proxiedUrl = `http://${req.headers.host ?? "proxy"}${req.url ?? "/"}`;
    const abort = new AbortController();
    let clientGone = false;
    let stopped = false;
    /**
     * When the client hung up (or the stop cut it): the exchange ended then, not once the upstream
     * was let go. A client that only half-closed its side and read the whole answer did not hang up.
     */
    let cutAt: number | undefined;
    // The socket's end or error comes as the client hangs up; the response's close only after the
    // loop has read what else arrived (a retry the client sent right after hanging up).
    const hungUp = () => {
      if (!res.writableFinished) cutAt ??= performance.now();
    };
    req.socket.once("end", hungUp).once("error", hungUp);
    // The response closes after it finished too: the kept-alive socket serves the next request without them.
    res.on("close", () => {
      req.socket.off("end", hungUp).off("error", hungUp);
      if (!res.writableFinished) {
        cutAt ??= performance.now();
        if (cutting) stopped = true;
        else clientGone = true;
        abort.abort();
      }
    });
    const copy: Buffer[] = [];
    const chunks: ObservedChunk[] = [];
    let copied = 0;
    let status: number | undefined;
    let responseHeaders: Record<string, string> = {};
    let complete = false;
    let failure: string | undefined;
    let incomplete = false;
    let waitMs: number | undefined;
    const noBody = req.method === "GET" || req.method === "HEAD";
    // Streamed upstream as it arrives, never held whole: only the copy for the judge is kept.
    const requestBody = !noBody && hasBody(req) ? new RequestBody(req) : undefined;
    try {
      const target = `${upstream.origin}${basePath}${req.url ?? "/"}`;
      const answer = await upstreamRequest(target, {
        method: (req.method ?? "GET") as Dispatcher.HttpMethod,
        headers: forwardable(req.headers),
        body: requestBody?.stream,
        signal: abort.signal,
        dispatcher,
      });
      status = answer.statusCode;
      waitMs = performance.now() - started;
      responseHeaders = flatHeaders(answer.headers);
      res.writeHead(answer.statusCode, forwardable(answer.headers));
      // A stream's head goes out at once (the client waits for it); any other rides with its body.
      if (String(answer.headers["content-type"] ?? "").includes("text/event-stream")) res.flushHeaders();
      // 'data' events rather than an async iterator: no promise per chunk, so a burst of events
      // from many streams at once is forwarded with as little work per event as possible.
      await new Promise<void>((resolve, reject) => {
        const body = answer.body;
        body.on("data", (chunk: Buffer) => {
          if (!res.write(chunk)) {
            body.pause();
            res.once("drain", () => body.resume());
          }
          chunks.push({ at: performance.now() - started, bytes: chunk.length });
          if (copied + chunk.length <= MAX_COPY_BYTES) copy.push(chunk);
          copied += chunk.length;
        });
        body.once("end", resolve);
        body.once("error", reject);
      });
      res.end();
      complete = copied <= MAX_COPY_BYTES;
      if (!complete) failure = `the body passed the ${MAX_COPY_BYTES} bytes a copy keeps`;
    } catch (error) {
      // Cut by the stop or the client, the request may have taken effect; with a head, the upstream broke off.
      incomplete = stopped || clientGone || status !== undefined;
      if (stopped) failure = STOPPED;
      else if (clientGone) failure = "the client hung up";
      else if (status === undefined) {
        failure = `the upstream could not be reached: ${error instanceof Error ? error.message : String(error)}`;
        if (!res.headersSent) {
          const body = JSON.stringify({
            error: { code: "upstream_unreachable", message: `agent-conformance proxy: ${failure}` },
          });
          res.writeHead(502, { "content-type": "application/json", "content-length": String(Buffer.byteLength(body)) });
          res.end(body);
        }
      } else {
        // The upstream broke mid-body: the client must see the same cut, not a clean end.
        failure = `the upstream connection broke: ${error instanceof Error ? error.message : String(error)}`;
        res.destroy();
      }
    } finally {
      running.delete(res);
    }
    // A retry the client sent right after hanging up began after this ended, as the client saw it.
    const durationMs = ((clientGone || stopped ? cutAt : undefined) ?? performance.now()) - started;
    const sentBytes = noBody ? undefined : requestBody === undefined ? Buffer.alloc(0) : requestBody.copied();
    const sentBody = sentBytes === undefined ? undefined : decodeBody(sentBytes, requestHeaders["content-encoding"]);
    const answerBody = decodeBody(Buffer.concat(copy), responseHeaders["content-encoding"]);
    const answerText = "text" in answerBody ? answerBody.text : undefined;
    const exchange: ObservedExchange = {
      sequence: number,
      startedAt,
      request: {
        method: req.method ?? "GET",
        url: proxiedUrl,
        headers: requestHeaders,
        body: sentBody !== undefined && "text" in sentBody ? sentBody.text : undefined,
      },
      response:
        status === undefined
          ? undefined
          : {
              status,
              headers: responseHeaders,
              body: answerText,
              complete,
              // Network reads of coded bytes say nothing about where the decoded events fell.
              chunks: "coded" in answerBody && !answerBody.coded ? chunks : undefined,
            },
      failure,
      ...(incomplete ? { incomplete: true as const } : {}),
      durationMs,
      ...(waitMs === undefined ? {} : { waitMs }),
    };
    await new Promise<void>((resolve) =>
      setImmediate(() => {
        try {
          options.onExchange(exchange);
        } finally {
          resolve();
        }
      }),
    );
  }

  const server: Server = createServer((req, res) => {
    const handover = forward(req, res);
    handovers.add(handover);
    void handover.finally(() => handovers.delete(handover));
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port, options.host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const shownHost = options.host.includes(":") ? `[${options.host}]` : options.host;
  return {
    url: `http://${shownHost}:${port}`,
    async close(graceMs) {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      const deadline = Date.now() + graceMs;
      while (running.size > 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
      cutting = true;
      server.closeAllConnections();
      let bound: NodeJS.Timeout | undefined;
      await Promise.race([
        Promise.allSettled([...handovers]),
        new Promise((resolve) => (bound = setTimeout(resolve, HANDOVER_MS))),
      ]);
      clearTimeout(bound);
      await closed;
      await dispatcher.destroy().catch(() => undefined);
    },
  };
}
