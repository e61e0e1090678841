/**
 * One request to the upstream when the proxy starts, so that a mistyped or stopped upstream is
 * said at once rather than discovered from the clients' 502s. Any HTTP answer counts as
 * reachable, whatever its status; the proxy starts either way. The probe is the proxy's own
 * request: it is neither forwarded nor judged.
 */
import { request, type Dispatcher } from "undici";
import { dispatcherFromEnvironment } from "../../http/client.ts";

/** A refused connection answers at once; a dropped one should not hold the warning back for long. */
const PROBE_TIMEOUT_MS = 5_000;

/** Undefined when the upstream answered; otherwise why it could not be reached. */
export async function probeUpstream(upstream: URL, timeoutMs = PROBE_TIMEOUT_MS): Promise<string | undefined> {
  const dispatcher: Dispatcher = dispatcherFromEnvironment({
    connections: 1,
    headersTimeout: timeoutMs,
    bodyTimeout: timeoutMs,
  });
  try {
    const answer = await request(upstream, { method: "GET", dispatcher, signal: AbortSignal.timeout(timeoutMs) });
    await answer.body.dump();
    return undefined;
  } catch (error) {
    const cause = error instanceof Error && error.cause instanceof Error ? `: ${error.cause.message}` : "";
    return `${error instanceof Error ? error.message : String(error)}${cause}`;
  } finally {
    await dispatcher.destroy().catch(() => undefined);
  }
}

export const unreachableWarning = (upstream: URL, why: string) =>
  `warning: the upstream ${upstream.href} could not be reached (${why}); the proxy runs, and answers 502 upstream_unreachable until it can`;
