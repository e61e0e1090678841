/**
 * The fake the fake's own tests start: on a free local port, closed when the test finishes, its
 * deltas unpaused unless asked, so no test cleans up after it.
 */
import { onTestFinished } from "vitest";
import type { AppDependencies } from "../app.ts";
import type { FakeServerOptions } from "../options.ts";
import { startFakeServer, type InspectableFakeServer } from "../server.ts";

/**
 * A fake on 127.0.0.1, any free port, closed when the current test finishes. Deltas are
 * not paused unless a test asks for it, to keep the run short.
 */
export async function fakeServer(
  options: FakeServerOptions = {},
  dependencies: Partial<AppDependencies> = {},
): Promise<InspectableFakeServer> {
  const server = await startFakeServer({ host: "127.0.0.1", port: 0, deltaDelayMs: 0, ...options }, dependencies);
  onTestFinished(() => server.close());
  return server;
}
