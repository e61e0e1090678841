/**
 * The reference fake, started in-process when no base URL is given. Extra options (a mutant
 * for the gate, a seed, other keys) are passed through to createFakeServer as given.
 */

import type { FakeServerOptions } from "../../fake-server/index.ts";

/** The fake's test hook that ends a stream with an `error` event after one delta (SSE-6). */
export const EMBEDDED_STREAM_ERROR_HEADER = Object.freeze({ name: "X-Fake-Fault", value: "error-after=1" });

export interface EmbeddedFake {
  url: string;
  close(): Promise<void>;
}

export async function startEmbeddedFake(options: Record<string, unknown>): Promise<EmbeddedFake> {
  // Imported on demand: a run against a live target never loads the fake.
  const { createFakeServer } = await import("../../fake-server/index.ts");
  // Port and host are the suite's to choose; everything else is the caller's.
  const server = await createFakeServer({ ...options, port: 0, host: "127.0.0.1" } as FakeServerOptions);
  return { url: server.url, close: () => server.close() };
}
