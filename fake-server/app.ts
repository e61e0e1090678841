/**
 * The fake's request pipeline, built once per app: CORS and the base path around polka; for
 * a /v1 request the session, the client-rule observer, the request log, the key check and the
 * rate limit, then its route. The stages and the folder of each: README.md beside this file, "Layout".
 */
import { setMaxListeners } from "node:events";
import type { IncomingMessage, ServerResponse } from "node:http";
import polka, { type Middleware } from "polka";
import { LoggedRequest, type RequestLog } from "./request-log/request-log.ts";
import { createAnswerEngine, type AnswerEngine } from "./answers/engine.ts";
import { authDeferredToBody, authenticate, skippedAuthGrant } from "./access/bearer.ts";
import { underBasePath } from "./http/base-path.ts";
import type { Behavior } from "./behavior/behavior.ts";
import { systemClock, type Clock } from "./runtime/clock.ts";
import type { ClientRuleObserver } from "./client-rules/observer.ts";
import type { AppContext, FakeRequest, Handler } from "./context.ts";
import type { ConversationStore, StoreStats } from "./conversations/store.ts";
import { overloadFor } from "./deployment/overload.ts";
import { rateLimiterFor } from "./deployment/rate-limit.ts";
import { baseFaultPlan } from "./faults/fault-plan.ts";
import { ApiError } from "./http/api-error.ts";
import { withCors } from "./http/cors.ts";
import { fail, failControl } from "./http/fail.ts";
import { bodyUnread, DRAIN_BYTES_PAST_CAP, refuseUnread } from "./http/refuse-body.ts";
import { sendError } from "./http/respond.ts";
import type { IdempotencyStore } from "./idempotency/store.ts";
import { newUuid } from "./conversations/ids.ts";
import { InFlight } from "./runtime/in-flight.ts";
import { resolveOptions, type FakeServerOptions, type ResolvedOptions } from "./options.ts";
import { buildRoutes, describeRoutes, type Route } from "./routes/table.ts";
import { SessionRegistry } from "./sessions/registry.ts";
import { replicasFor } from "./deployment/replicas.ts";
import { SESSION_HEADER, sessionName } from "./sessions/session-name.ts";
import type { SharedContext } from "./sessions/session.ts";
import { TimerRegistry } from "./pause/timers.ts";
import { uuidV7Generator } from "./conversations/uuid-v7.ts";

/**
 * The stages a /v1 request passes, in order, numbered as README.md's "Layout" numbers them (a
 * test holds the two together), with the folders that hold each. This file runs 1 to 6; then
 * the route's handler, a create through `beginExchange` (lifecycle/), which chooses the answer
 * before it pauses. A list or a delete has no idempotency, answer or commit: after its pause it
 * reads or changes the store.
 */
export const STAGES = Object.freeze([
  { stage: 0, name: "around every request", folders: ["http/"] },
  { stage: 1, name: "session", folders: ["sessions/"] },
  { stage: 2, name: "client-rule observer", folders: ["client-rules/"] },
  { stage: 3, name: "log", folders: ["request-log/"] },
  { stage: 4, name: "auth", folders: ["access/"] },
  { stage: 5, name: "rate limit", folders: ["deployment/"] },
  { stage: 6, name: "route", folders: ["routes/"] },
  {
    stage: 7,
    name: "headers, faults, validation, idempotency, scope",
    folders: ["exchange/", "faults/", "idempotency/", "access/"],
  },
  { stage: 8, name: "answer", folders: ["answers/"] },
  { stage: 9, name: "pause", folders: ["pause/"] },
  { stage: 10, name: "commit or stream", folders: ["commit/"] },
] as const);

/** What tests and benchmarks may swap; everything else comes from FakeServerOptions. */
export interface AppDependencies {
  behavior: Behavior;
  clock: Clock;
  newId: () => string;
  engine: AnswerEngine;
}

/** The stores and registries behind an app (those of the default session), for tests that seed or inspect them directly. */
export interface FakeInternals {
  readonly options: ResolvedOptions;
  readonly conversations: ConversationStore;
  readonly idempotency: IdempotencyStore;
  readonly timers: TimerRegistry;
  readonly inFlight: InFlight;
  readonly requestLog: RequestLog;
  readonly clientRules: ClientRuleObserver;
  readonly sessions: SessionRegistry;
  /** Totals over every session. */
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
const SESSION_CONTEXT = Symbol("session.context");
type LoggedResponse = ServerResponse & {
  [LOG_ENTRY]?: LoggedRequest;
  [SESSION_CONTEXT]?: AppContext;
  req: FakeRequest;
};

/**
 * Logs a request in its session. The `close` listener, one per app and shared by the
 * responses (no closure per request), also tells the session's client-rule observer.
 */
function logRequest(ctx: AppContext, req: FakeRequest, res: ServerResponse): void {
  const logged = res as LoggedResponse;
  logged[LOG_ENTRY] = new LoggedRequest(
    ctx.clock.now(),
    performance.now(),
    req.method,
    req.path,
    req.headers,
    ctx.session.name,
  );
  logged[SESSION_CONTEXT] = ctx;
  res.on("close", onResponseClosed);
}

function onResponseClosed(this: LoggedResponse): void {
  const ctx = this[SESSION_CONTEXT];
  const entry = this[LOG_ENTRY];
  if (ctx === undefined) return;
  const { observed } = this.req;
  ctx.clientRules.responseClosed(observed, {
    status: this.statusCode,
    headersSent: this.headersSent,
    finished: this.writableFinished,
  });
  if (entry === undefined) return;
  this[LOG_ENTRY] = undefined;
  entry.closed(this.statusCode, performance.now(), this.req, observed?.warnings);
  ctx.requestLog.add(entry);
}

/** An error answer to a /v1 request; the client-rule observer hears of its headers (a Retry-After paces the retries). */
function failApi(ctx: AppContext, req: FakeRequest, res: ServerResponse, error: unknown): void {
  afterUnreadBody(ctx, req, error, (refusal) => {
    const answered = fail(ctx, req, res, refusal);
    if (answered !== undefined) ctx.clientRules.errorAnswered(req.observed, answered.headers);
  });
}

/** The same for a /__fake request: errors in the fake's own shape. */
function failFake(ctx: AppContext, req: FakeRequest, res: ServerResponse, error: unknown): void {
  afterUnreadBody(ctx, req, error, (refusal) => failControl(ctx, req, res, refusal));
}

/**
 * A refusal that came before the body was read (the key, the session, the route, a header)
 * goes once the body is drained, within the bound a 413 drains (http/refuse-body.ts), so a
 * client still sending reads it instead of a reset connection. Anything else goes at once.
 */
function afterUnreadBody(ctx: AppContext, req: FakeRequest, error: unknown, answer: (error: unknown) => void): void {
  if (!(error instanceof ApiError) || !bodyUnread(req)) {
    answer(error);
    return;
  }
  refuseUnread(req, error, ctx.options.maxBodyBytes + DRAIN_BYTES_PAST_CAP).catch(answer);
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
    // Only mutants let such a request through: one serves it as the first key
    // (behavior.broken.authSkippedOn), one lets the stream's body name a conversation to
    // authenticate by (behavior.broken.streamAuthByConversation; the route decides).
    if (authDeferredToBody(req, ctx.behavior)) {
      req.refusedKey = error;
      return true;
    }
    const skipped = skippedAuthGrant(req, ctx.behavior, ctx.options.keys);
    if (skipped === undefined) {
      failApi(ctx, req, res, error);
      return false;
    }
    grant = skipped;
  }
  req.grant = grant;
  const limited = ctx.rateLimits === undefined ? undefined : ctx.rateLimits.take(grant.token);
  if (limited !== undefined) {
    failApi(ctx, req, res, limited);
    return false;
  }
  return true;
}

/** The context of the session a request is in; undefined when it was answered (a bad session name). */
type BeforeRoute = (req: FakeRequest, res: ServerResponse) => AppContext | undefined;

/** The session a /__fake request names with ?session=, or the 400 it was answered with. */
function controlSession(sessions: SessionRegistry, req: FakeRequest, res: ServerResponse): AppContext | undefined {
  const query: Readonly<Record<string, unknown>> = req.query;
  try {
    return sessions.get(sessionName(Object.hasOwn(query, "session") ? query["session"] : undefined, "session")).context;
  } catch (error) {
    failFake(sessions.defaultSession.context, req, res, error);
    return undefined;
  }
}

/**
 * What every request goes through before its route (or the 404), as plain calls made by
 * each route handler and by the 404 rather than as polka middlewares: polka builds two
 * promises for every middleware a request passes through.
 */
function beforeRoutes(sessions: SessionRegistry): BeforeRoute {
  const fallback = sessions.defaultSession.context;
  return (req, res) => {
    // The fake's own endpoints are neither logged, observed nor keyed.
    if (isUnder(req.path, "/__fake")) return controlSession(sessions, req, res);
    if (!isUnder(req.path, "/v1")) {
      logRequest(fallback, req, res);
      return fallback;
    }
    const header = req.headers[SESSION_HEADER];
    let ctx = fallback;
    let refused: unknown;
    if (header !== undefined) {
      try {
        ctx = sessions.get(sessionName(header, "X-Fake-Session")).context;
      } catch (error) {
        refused = error;
      }
    }
    // First, so the request log finds the observer's record on the request.
    req.observed = ctx.clientRules.arrived({ method: req.method ?? "GET", path: req.path, headers: req.headers });
    logRequest(ctx, req, res);
    if (refused !== undefined) {
      failApi(ctx, req, res, refused);
      return undefined;
    }
    if (!keyAccepted(ctx, req, res)) return undefined;
    // A mutant runs as replicas: the connection decides which one serves the request.
    return ctx.replicas === undefined ? ctx : ctx.session.contextOn(req.socket);
  };
}

function dispatch(route: Route, before: BeforeRoute): Middleware<FakeRequest> {
  const onError = route.control ? failFake : failApi;
  return (req, res) => {
    const ctx = before(req, res);
    if (ctx === undefined) return;
    const handler = route.methods.get(req.method);
    if (!handler) {
      const allow = [...route.methods.keys()].join(", ");
      onError(
        ctx,
        req,
        res,
        new ApiError(405, "method_not_allowed", `${req.method} is not allowed on ${req.path}; use ${allow}`, {
          Allow: allow,
        }),
      );
      return;
    }
    return runHandler(ctx, handler, req, res, onError);
  };
}

/** Runs a route handler, counted in flight; whatever it throws becomes an answer. No closure per request. */
async function runHandler(
  ctx: AppContext,
  handler: Handler,
  req: FakeRequest,
  res: ServerResponse,
  onError: typeof failApi,
): Promise<void> {
  ctx.inFlight.enter();
  try {
    await handler(ctx, req, res);
  } catch (error) {
    onError(ctx, req, res, error);
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
  const shared: SharedContext = {
    options: resolved,
    behavior,
    clock,
    engine: dependencies.engine ?? createAnswerEngine(resolved.seed),
    timers: new TimerRegistry(),
    inFlight: new InFlight(),
    baseFaults: baseFaultPlan(behavior),
    rateLimits: rateLimiterFor(behavior, clock),
    overload: overloadFor(behavior),
    replicas: replicasFor(behavior),
    shutdown: shutdown.signal,
    log: (line) => {
      try {
        resolved.log(line);
      } catch {
        // A failing logger must not take the server down with it.
      }
    },
  };
  const newId = dependencies.newId ?? (behavior.ids === "uuid-v7" ? uuidV7Generator(clock) : newUuid);
  const sessions = new SessionRegistry(shared, newId, resolved.maxSessions);
  const ctx = sessions.defaultSession.context;
  const reset = () => {
    sessions.reset();
    shared.rateLimits?.clear();
    shared.overload?.clear();
  };

  const routes = buildRoutes(reset);
  const routeSummary = describeRoutes(routes);
  const before = beforeRoutes(sessions);
  const app = polka<FakeRequest>({
    onNoMatch: (req, res) => {
      const session = before(req, res);
      if (session === undefined) return;
      const failWith = isUnder(req.path, "/__fake") ? failFake : failApi;
      failWith(
        session,
        req,
        res,
        new ApiError(404, "not_found", `no route matches ${req.method} ${req.path}; the routes are: ${routeSummary}`),
      );
    },
    onError: (error, req, res) => failApi(ctx, req, res, error),
  });
  for (const route of routes) app.all(route.pattern, dispatch(route, before));

  // Expired records also go lazily on access; the sweep bounds memory for keys never seen again.
  const sweep = () => {
    for (const session of sessions.all()) for (const records of session.idempotencyStores()) records.sweep();
  };
  const sweeper = setInterval(sweep, Math.max(1_000, Math.min(resolved.idempotencyTtlMs, 60_000)));
  sweeper.unref();

  const routed = app.handler as unknown as (req: IncomingMessage, res: ServerResponse) => void;
  const { basePath } = resolved;
  const served =
    basePath === ""
      ? routed
      : underBasePath(basePath, routed, (req, res) => {
          const path = (req.url ?? "/").split("?")[0];
          sendError(
            res,
            behavior,
            404,
            "not_found",
            `no route matches ${req.method} ${path}; this server serves the API under ${basePath}/v1`,
          );
        });
  const handler = resolved.cors ? withCors(basePath, served) : served;
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
      sessions,
      snapshot: () => {
        const total = { conversations: 0, messages: 0, idempotencyRecords: 0 };
        for (const session of sessions.all()) {
          const stats = session.context.conversations.stats();
          total.conversations += stats.conversations;
          total.messages += stats.messages;
          total.idempotencyRecords += session.context.idempotency.size;
        }
        return total;
      },
    },
  };
}
