/**
 * `faultInjector()`, published as `agent-service-conformance/fake/testing`: a client's own tests
 * queue the fake's faults for their next requests without changing the client.
 */
import { getGlobalDispatcher, type Dispatcher } from "undici";

/**
 * Provokes the reference fake's faults from a client's own tests without touching the client:
 * queue a fault for the next request to a path, and hand the client `fetch` (a client built on
 * fetch) or `dispatcher` (a client built on undici). Each queued fault rides on exactly one
 * request as the `X-Fake-Fault` header (see the fake's README), so a retry of that request
 * goes out clean. Both share one queue: a fault goes with whichever request matches first.
 */
export interface FaultInjector {
  /** Use in place of the global `fetch`: it sends through the `fetch` it wraps. */
  readonly fetch: typeof fetch;
  /** An undici dispatcher, for undici's `request`, `stream`, `fetch` or a client's `dispatcher` option. */
  readonly dispatcher: Dispatcher;
  /** The next request whose path ends with `pathSuffix` (query aside) carries `fault`. */
  next(pathSuffix: string, fault: string): void;
  /** Faults queued and not yet sent; a test checks it is 0, so its scenario really happened. */
  readonly pending: number;
}

export interface FaultInjectorOptions {
  /** What `fetch` sends through; default the global fetch. */
  fetch?: typeof fetch;
  /** What `dispatcher` sends through; default undici's global dispatcher. */
  dispatcher?: Dispatcher;
}

const HEADER = "x-fake-fault";

type UndiciHeaders = Dispatcher.DispatchOptions["headers"];

function withHeader(headers: UndiciHeaders, name: string, value: string): UndiciHeaders {
  if (headers === null || headers === undefined) return { [name]: value };
  if (Array.isArray(headers)) return [...headers, name, value];
  const entries: [string, string | string[] | undefined][] =
    Symbol.iterator in headers
      ? [...(headers as Iterable<[string, string | string[] | undefined]>)]
      : Object.entries(headers);
  const kept = entries.filter((entry): entry is [string, string | string[]] => entry[1] !== undefined);
  return Object.fromEntries([...kept, [name, value]]);
}

export function faultInjector(options: FaultInjectorOptions = {}): FaultInjector {
  const queue: { pathSuffix: string; fault: string }[] = [];
  const take = (path: string): string | undefined => {
    const index = queue.findIndex((item) => path.endsWith(item.pathSuffix));
    return index === -1 ? undefined : queue.splice(index, 1)[0]?.fault;
  };

  const baseFetch = options.fetch ?? globalThis.fetch;
  // async: a URL that does not parse rejects, as it does with fetch itself.
  const wrappedFetch: typeof fetch = async (input, init) => {
    const fault = take(new URL(input instanceof Request ? input.url : input).pathname);
    if (fault === undefined) return baseFetch(input, init);
    // init's headers replace a Request's own, as in fetch; the fault is added to whichever apply.
    const headers = new Headers(init?.headers ?? (input instanceof Request ? input.headers : undefined));
    headers.set(HEADER, fault);
    return baseFetch(input, { ...init, headers });
  };

  const dispatcher = (options.dispatcher ?? getGlobalDispatcher()).compose((dispatch) => (dispatchOptions, handler) => {
    const fault = take(dispatchOptions.path.split("?")[0] ?? "");
    if (fault === undefined) return dispatch(dispatchOptions, handler);
    return dispatch({ ...dispatchOptions, headers: withHeader(dispatchOptions.headers, HEADER, fault) }, handler);
  });

  return {
    fetch: wrappedFetch,
    dispatcher,
    next: (pathSuffix, fault) => void queue.push({ pathSuffix, fault }),
    get pending() {
      return queue.length;
    },
  };
}
