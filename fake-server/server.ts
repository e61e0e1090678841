import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { createFakeApp, type AppDependencies, type FakeApp } from "./app.ts";
import type { FakeServerOptions } from "./options.ts";

export interface FakeServer {
  url: string;                // "http://127.0.0.1:PORT"
  port: number;
  close(): Promise<void>;     // closes sockets (incl. keep-alive and running streams) and timers
  reset(): void;              // empties every store
}

/** A listening fake together with its app, for tests that reach into the stores. */
export interface InspectableFakeServer extends FakeServer {
  readonly app: FakeApp;
}

export async function startFakeServer(
  options: FakeServerOptions = {},
  dependencies: Partial<AppDependencies> = {},
): Promise<InspectableFakeServer> {
  const app = createFakeApp(options, dependencies);
  const { host, port: requestedPort } = app.internals.options;
  const server = createServer(app.handler);
  try {
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(requestedPort, host, () => {
        server.off("error", reject);
        resolve();
      });
    });
  } catch (error) {
    app.close();
    throw error;
  }
  const { port } = server.address() as AddressInfo;
  const url = `http://${host.includes(":") ? `[${host}]` : host}:${port}`;
  let closing: Promise<void> | undefined;
  const close = () =>
    (closing ??= (async () => {
      app.close();
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      await closed;
      await app.internals.inFlight.whenIdle();
    })());
  return { url, port, close, reset: app.reset, app };
}
