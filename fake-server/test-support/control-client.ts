/**
 * Calls to the fake's /__fake control endpoints for its tests: at the origin's root whatever the
 * base path, in a named session when asked.
 */
import { call, type Reply } from "./client.ts";

/** The origin of a fake's url: /__fake is at the root, whatever the base path. */
const originOf = (url: string) => new URL(url).origin;

/** A request to one of the fake's control endpoints, in `session` when one is named. */
export function control(
  fakeUrl: string,
  method: string,
  path: string,
  body?: unknown,
  session?: string,
): Promise<Reply> {
  const query = session === undefined ? "" : `${path.includes("?") ? "&" : "?"}session=${encodeURIComponent(session)}`;
  const text = body === undefined ? undefined : typeof body === "string" ? body : JSON.stringify(body);
  return call(originOf(fakeUrl), method, `${path}${query}`, {}, text);
}

/** The session header, for the API calls of a test. */
export const inSession = (session: string) => ({ headers: { "x-fake-session": session } });
