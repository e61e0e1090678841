/**
 * The listening fake: the app on a node:http server (the state file loaded before it listens and
 * saved when it closes), and the FakeServer handle the library and the command line give their
 * callers.
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import type { ClientViolation, ClientViolationCount } from "../schemas/index.ts";
import type { ClientViolationFilter } from "./client-rules/filter.ts";
import { createFakeApp, type AppDependencies, type FakeApp } from "./app.ts";
import { systemClock } from "./runtime/clock.ts";
import { loadState, saveState } from "./state/state-file.ts";
import type { FakeServerOptions } from "./options.ts";
import { DEFAULT_SESSION } from "./sessions/session-name.ts";

/** Which violations to read: those of one session (default "default"), filtered as ClientViolationFilter says. */
export interface SessionViolationFilter extends ClientViolationFilter {
  session?: string;
}

export interface FakeServer {
  url: string; // "http://127.0.0.1:PORT", and the base path when there is one; /__fake is at the root, not under it
  port: number;
  close(): Promise<void>; // closes sockets (incl. keep-alive and running streams) and timers
  reset(): void; // empties every session's stores, client violations included
  /** Requests that broke the spec's client rules, oldest first (fake-server/CLIENT-TESTING.md); of the session `filter.session` names, "default" without one. */
  clientViolations(filter?: SessionViolationFilter): ClientViolation[];
  /** How often each client rule was broken since the start or the last reset, in one session. */
  clientViolationCounts(filter?: SessionViolationFilter): ClientViolationCount[];
  /** The names of the sessions the fake keeps, "default" first. */
  sessions(): string[];
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
  const { host, port: requestedPort, stateFile } = app.internals.options;
  if (stateFile !== undefined) {
    try {
      loadState(stateFile, app.internals.sessions, app.internals.options.keys, dependencies.clock ?? systemClock);
    } catch (error) {
      app.close();
      throw error;
    }
  }
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
  // Clients use it as their base URL, so it carries the prefix the API is served under.
  const url = `http://${host.includes(":") ? `[${host}]` : host}:${port}${app.internals.options.basePath}`;
  let closing: Promise<void> | undefined;
  const close = () =>
    (closing ??= (async () => {
      app.close();
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      await closed;
      await app.internals.inFlight.whenIdle();
      if (stateFile !== undefined) saveState(stateFile, app.internals.sessions);
    })());
  const { sessions } = app.internals;
  const rulesOf = (filter: SessionViolationFilter = {}) =>
    sessions.get(filter.session ?? DEFAULT_SESSION).context.clientRules;
  return {
    url,
    port,
    close,
    reset: app.reset,
    clientViolations: (filter) => rulesOf(filter).violations(filter),
    clientViolationCounts: (filter) => rulesOf(filter).counts(filter),
    sessions: () => [...sessions.all()].map((session) => session.name),
    app,
  };
}
