import { setMaxListeners } from "node:events";
import type { IncomingMessage, ServerResponse } from "node:http";
import polka, { type Middleware } from "polka";
import { LoggedRequest, RequestLog } from "./admin/request-log.ts";
import { createAnswerEngine, type AnswerEngine } from "./answers/engine.ts";
import { authenticate, skippedAuthGrant } from "./auth.ts";
import { underBasePath } from "./base-path.ts";
import type { Behavior } from "./behavior.ts";
import { systemClock, type Clock } from "./clock.ts";
import { ClientRuleObserver } from "./client-rules/observer.ts";
import type { AppContext, FakeRequest, Handler } from "./context.ts";
import { ConversationStore, type StoreStats } from "./conversations/store.ts";
import { overloadFor } from "./deployment/overload.ts";
import { rateLimiterFor } from "./deployment/rate-limit.ts";
import { baseFaultPlan } from "./faults.ts";
import { ApiError } from "./http/api-error.ts";
import { fail } from "./http/fail.ts";
import { sendError } from "./http/respond.ts";
import { IdempotencyStore } from "./idempotency/store.ts";
import { newUuid } from "./ids.ts";
import { InFlight } from "./in-flight.ts";
import { resolveOptions, type FakeServerOptions, type ResolvedOptions } from "./options.ts";
import { buildRoutes, describeRoutes, type Route } from "./routes/table.ts";
import { TimerRegistry } from "./timers.ts";
import { uuidV7Generator } from "./uuid-v7.ts";

/** What tests and benchmarks may swap; everything else comes from FakeServerOptions. */
export interface AppDependencies {
  behavior: Behavior;
  clock: Clock;
  newId: () => string;
  engine: AnswerEngine;
}

/** The stores and registries behind an app, for tests that seed or inspect them directly. */
export interface FakeInternals {
  readonly options: ResolvedOptions;
  readonly conversations: ConversationStore;
  readonly idempotency: IdempotencyStore;
  readonly timers: TimerRegistry;
  readonly inFlight: InFlight;
  readonly requestLog: RequestLog;
  readonly clientRules: ClientRuleObserver;
  snapshot(): StoreStats & { idempotencyRecords: number };
}

export interface FakeApp {
  /** A plain Node request listener: `http.createServer(app.handler)`. */
  readonly handler: (req: IncomingMessage, res: ServerResponse) => void;
  /** Empties every store. */
  reset(): void;
  /** Stops every running exchange and timer; the caller closes its own server. */
  close(): void;
  readonly internals: FakeInternals;
}

// polka matches routes case-insensitively (/V1/AGENTS/... reaches the /v1 handlers), so the
// prefix checks must too, or such a path would skip the key check.
const isUnder = (path: string, prefix: string) =>
  path.length >= prefix.length &&
  (path.length === prefix.length || path.charCodeAt(prefix.length) === 0x2f) &&
  (path.startsWith(prefix) || path.slice(0, prefix.length).toLowerCase() === prefix);

const LOG_ENTRY = Symbol("request-log.entry");
type LoggedResponse = ServerResponse & { [LOG_ENTRY]?: LoggedRequest; req: FakeRequest };

/**
 * Logs a request. Its `close` listener, one per app and shared by the responses (no closure
 * per request), also tells the client-rule observer: one listener per response rather than
 * one per module.
 */
function requestLogger(ctx: AppContext): (req: FakeRequest, res: ServerResponse) => void {
  function onClose(this: LoggedResponse): void {
    ctx.clientRules.responseClosed(this);
    const entry = this[LOG_ENTRY];
    if (entry === undefined) return;
    this[LOG_ENTRY] = undefined;
    entry.closed(this.statusCode, performance.now(), this.req.warnings);
    ctx.requestLog.add(entry);
  }
  return (req, res) => {
    (res as LoggedResponse)[LOG_ENTRY] = new LoggedRequest(ctx.clock.now(), performance.now(), req.method, req.path, req.headers.authorization);
    res.on("close", onClose);
  };
}

/**
 * A /v1 request, known route or not, must first show a valid key, and then find a token in
 * its key's bucket under the rate-limited variant; false when it was answered with the refusal.
 */
function keyAccepted(ctx: AppContext, req: FakeRequest, res: ServerResponse): boolean {
  let grant;
  try {
    grant = authenticate(req, ctx.options.keys);
  } catch (error) {
    // Only a mutant lets such a request through (behavior.broken.authSkippedOn).
    const skipped = skippedAuthGrant(req, ctx.behavior, ctx.options.keys);
    if (skipped === undefined) {
      fail(ctx, req, res, error);
      return false;
    }
    grant = skipped;
  }
  req.grant = grant;
  const limited = ctx.rateLimits === undefined ? undefined : ctx.rateLimits.take(grant.token);
  if (limited !== undefined) {
    fail(ctx, req, res, limited);
    return false;
  }
  return true;
}

/** What every request goes through before its route (or the 404); false when it was answered. */
type BeforeRoute = (req: FakeRequest, res: ServerResponse) => boolean;

/**
 * The steps before the routes, as plain calls made by each route handler and by the 404
 * rather than as polka middlewares: polka builds two promises for every middleware a
 * request passes through.
 */
function beforeRoutes(ctx: AppContext): BeforeRoute {
  const logRequest = requestLogger(ctx);
  return (req, res) => {
    // The fake's own endpoints are neither logged, observed nor keyed.
    if (isUnder(req.path, "/__fake")) return true;
    const api = isUnder(req.path, "/v1");
    // First, so the observer's findings are in req.warnings when the request log reads them.
    if (api) ctx.clientRules.arrived(req, res);
    logRequest(req, res);
    return !api || keyAccepted(ctx, req, res);
  };
}

function dispatch(ctx: AppContext, route: Route, before: BeforeRoute): Middleware<FakeRequest> {
  return (req, res) => {
    if (!before(req, res)) return;
    const handler = route.methods.get(req.method);
    if (!handler) {
      const allow = [...route.methods.keys()].join(", ");
      fail(ctx, req, res, new ApiError(405, "method_not_allowed", `${req.method} is not allowed on ${req.path}; use ${allow}`, { Allow: allow }));
      return;
    }
    return runHandler(ctx, handler, req, res);
  };
}

/** Runs a route handler, counted in flight; whatever it throws becomes an answer. No closure per request. */
async function runHandler(ctx: AppContext, handler: Handler, req: FakeRequest, res: ServerResponse): Promise<void> {
  ctx.inFlight.enter();
  try {
    await handler(ctx, req, res);
  } catch (error) {
    fail(ctx, req, res, error);
  } finally {
    ctx.inFlight.leave();
  }
}

export function createFakeApp(options: FakeServerOptions = {}, dependencies: Partial<AppDependencies> = {}): FakeApp {
  const resolved = resolveOptions(options);
  const clock = dependencies.clock ?? systemClock;
  const behavior = dependencies.behavior ?? resolved.behavior;
  const shutdown = new AbortController();
  // Every running pause listens to it: hundreds at once are normal, not a leak to warn about.
  setMaxListeners(0, shutdown.signal);
  const ctx: AppContext = {
    options: resolved,
    behavior,
    clock,
    engine: dependencies.engine ?? createAnswerEngine(resolved.seed),
    conversations: new ConversationStore(clock, dependencies.newId ?? (behavior.ids === "uuid-v7" ? uuidV7Generator(clock) : newUuid)),
    idempotency: new IdempotencyStore(clock, resolved.idempotencyTtlMs),
    timers: new TimerRegistry(),
    requestLog: new RequestLog(resolved.requestLogSize),
    clientRules: new ClientRuleObserver(clock, new Set(resolved.keys.keys()), options.clientRules),
    inFlight: new InFlight(),
    baseFaults: baseFaultPlan(behavior),
    rateLimits: rateLimiterFor(behavior, clock),
    overload: overloadFor(behavior),
    shutdown: shutdown.signal,
    log: (line) => {
      try {
        resolved.log(line);
      } catch {
        // A failing logger must not take the server down with it.
      }
    },
  };
  const reset = () => {
    ctx.conversations.clear();
    ctx.idempotency.clear();
    ctx.requestLog.clear();
    ctx.clientRules.clear();
    ctx.rateLimits?.clear();
    ctx.overload?.clear();
  };

  const routes = buildRoutes(reset);
  const routeSummary = describeRoutes(routes);
  const before = beforeRoutes(ctx);
  const app = polka<FakeRequest>({
    onNoMatch: (req, res) => {
      if (!before(req, res)) return;
      fail(ctx, req, res, new ApiError(404, "not_found", `no route matches ${req.method} ${req.path}; the routes are: ${routeSummary}`));
    },
    onError: (error, req, res) => fail(ctx, req, res, error),
  });
  for (const route of routes) app.all(route.pattern, dispatch(ctx, route, before));

  // Expired records also go lazily on access; the sweep bounds memory for keys never seen again.
  const sweeper = setInterval(() => ctx.idempotency.sweep(), Math.max(1_000, Math.min(resolved.idempotencyTtlMs, 60_000)));
  sweeper.unref();

  const routed = app.handler as unknown as (req: IncomingMessage, res: ServerResponse) => void;
  const { basePath } = resolved;
  const handler = basePath === "" ? routed : underBasePath(basePath, routed, (req, res) => {
    const path = (req.url ?? "/").split("?")[0];
    sendError(res, behavior, 404, "not_found", `no route matches ${req.method} ${path}; this server serves the API under ${basePath}/v1`);
  });
  return {
    handler,
    reset,
    close: () => {
      clearInterval(sweeper);
      shutdown.abort();
    },
    internals: {
      options: resolved,
      conversations: ctx.conversations,
      idempotency: ctx.idempotency,
      timers: ctx.timers,
      inFlight: ctx.inFlight,
      requestLog: ctx.requestLog,
      clientRules: ctx.clientRules,
      snapshot: () => ({ ...ctx.conversations.stats(), idempotencyRecords: ctx.idempotency.size }),
    },
  };
}
