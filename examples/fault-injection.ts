import { getGlobalDispatcher, type Dispatcher } from "undici";

/**
 * Provokes the reference fake's faults from a client's own tests without touching the
 * client: hand `dispatcher` to the client, then queue faults for the next requests to a
 * path. Each queued fault rides on exactly one request as `X-Fake-Fault` (see
 * fake-server/README.md), so a retry of that request goes out clean.
 */
export interface FaultInjector {
  readonly dispatcher: Dispatcher;
  /** The next request whose path ends with `pathSuffix` (query aside) carries `fault`. */
  next(pathSuffix: string, fault: string): void;
  /** Faults queued and not yet sent; a test checks it is 0, so its scenario really happened. */
  readonly pending: number;
}

type Headers = Dispatcher.DispatchOptions["headers"];

function withHeader(headers: Headers, name: string, value: string): Headers {
  if (headers === null || headers === undefined) return { [name]: value };
  if (Array.isArray(headers)) return [...headers, name, value];
  const entries: [string, string | string[] | undefined][] =
    Symbol.iterator in headers ? [...(headers as Iterable<[string, string | string[] | undefined]>)] : Object.entries(headers);
  const kept = entries.filter((entry): entry is [string, string | string[]] => entry[1] !== undefined);
  return Object.fromEntries([...kept, [name, value]]);
}

export function faultInjector(base: Dispatcher = getGlobalDispatcher()): FaultInjector {
  const queue: { pathSuffix: string; fault: string }[] = [];
  const dispatcher = base.compose((dispatch) => (options, handler) => {
    const path = options.path.split("?")[0] ?? "";
    const index = queue.findIndex((item) => path.endsWith(item.pathSuffix));
    const item = index === -1 ? undefined : queue.splice(index, 1)[0];
    if (item === undefined) return dispatch(options, handler);
    return dispatch({ ...options, headers: withHeader(options.headers, "x-fake-fault", item.fault) }, handler);
  });
  return {
    dispatcher,
    next: (pathSuffix, fault) => void queue.push({ pathSuffix, fault }),
    get pending() {
      return queue.length;
    },
  };
}
