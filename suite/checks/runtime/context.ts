/**
 * The worker side of a run: the Target every check receives, built once per worker from the
 * settings the runner provides (vitest provide/inject), with the process-wide budget ledger,
 * concurrency cap and connection pool.
 */

import { inject } from "vitest";
import { BudgetLedger } from "./budget.ts";
import { Semaphore } from "../../http/concurrency.ts";
import { checkScopes } from "./check-scope.ts";
import { createClient, createPool, type ClientOptions } from "../../http/client.ts";
import { HarnessError } from "../../http/errors.ts";
import { appendJournal, type KeyRole } from "./journal.ts";
import { displayUrl, Redactor } from "../../http/redact.ts";
import { StoppablePacer, watchStopRequest, type StopRequest } from "./stop-request.ts";
import { timeAllowanceMs } from "./check-timing.ts";
import { useFixture, type SharedFixture } from "./shared-fixture.ts";
import { RUN_SETTINGS_KEY, RunSettingsSchema, type RunSettings } from "./run-settings.ts";
import type { Identity, Transcript } from "../../http/types.ts";
import type { Target } from "./types.ts";

interface WorkerState {
  settings: RunSettings;
  ledger: BudgetLedger;
  target: Target;
  /** Whether the run is being interrupted: no request starts once it is. */
  stop: StopRequest;
}

const STATE_KEY = Symbol.for("agent-conformance.worker-state");

function loadSettings(): RunSettings {
  const provided: unknown = inject(RUN_SETTINGS_KEY);
  if (provided === undefined) {
    throw new HarnessError(
      "configuration",
      "the checks run only through the conformance runner (npm run conformance); no run settings were provided",
    );
  }
  const parsed = RunSettingsSchema.safeParse(provided);
  if (!parsed.success) throw new HarnessError("configuration", `invalid run settings: ${parsed.error.message}`);
  return parsed.data;
}

/** Labels become part of idempotency keys and messages: keep them short and plain. */
function cleanLabel(label: string): string {
  return label.replace(/[^A-Za-z0-9_.-]+/g, "_").slice(0, 40) || "x";
}

/** The conversation a DELETE answered 2xx removed, from its URL (…/conversations/ID). */
function deletedConversationOf(transcript: Transcript): string | undefined {
  const status = transcript.response?.status;
  if (transcript.request.method !== "DELETE" || status === undefined || status < 200 || status > 299) return undefined;
  const match = /\/conversations\/([^/?#]+)$/.exec(
    URL.canParse(transcript.request.url) ? new URL(transcript.request.url).pathname : "",
  );
  return match?.[1] === undefined ? undefined : decodeURIComponent(match[1]);
}

function keyRole(settings: RunSettings, apiKey: string | null): KeyRole {
  if (apiKey === null) return "none";
  if (apiKey === settings.primary.apiKey) return "primary";
  if (apiKey === settings.otherKey?.apiKey) return "other";
  return "unknown";
}

function buildState(settings: RunSettings): WorkerState {
  const ledger = new BudgetLedger(settings.maxCreates);
  const semaphore = new Semaphore(settings.concurrency);
  const redactor = new Redactor([
    settings.primary.apiKey,
    settings.otherKey?.apiKey,
    settings.otherAgent?.apiKey,
    ...Object.values(settings.headers),
  ]);
  const pool = createPool(settings.baseUrl, settings.concurrency, settings.requestTimeoutMs);
  const stop = watchStopRequest(settings.stopPath);
  const pacer = new StoppablePacer(settings.maxRps, stop);
  let counter = 0;
  const runScoped = (label: string) => `conf-${settings.runId}-${cleanLabel(label)}-${++counter}`;

  const clientOptions: ClientOptions = {
    baseUrl: settings.baseUrl,
    primary: settings.primary,
    limits: settings,
    dispatcher: pool,
    semaphore,
    redactor,
    idempotencyKey: () => runScoped("key"),
    maxRetries: settings.maxRetries,
    pacer,
    extraHeaders: settings.headers,
    observer: {
      beforeCreate: () => {
        const scope = checkScopes.getStore();
        if (scope === undefined) throw new HarnessError("budget", "a create was attempted outside any check");
        const hold = scope.reservation.tryHold();
        if (hold === undefined) {
          throw new HarnessError(
            "budget",
            `the check "${scope.title}" declared creates: ${scope.reservation.reserved} but tried to make more`,
          );
        }
        return {
          settle: (consumed) => {
            hold.settle(consumed);
            if (consumed) appendJournal(settings.journalPath, { type: "create", check: scope.title });
          },
        };
      },
      onExchange: (transcript, stream) => {
        checkScopes.getStore()?.record(transcript, stream);
        const deleted = deletedConversationOf(transcript);
        if (deleted !== undefined)
          appendJournal(settings.journalPath, {
            type: "deleted",
            conversationId: deleted,
            check: checkScopes.getStore()?.title ?? "",
          });
      },
      onRetry: (note) => checkScopes.getStore()?.noteRetry(note),
      signal: () => checkScopes.getStore()?.controller.signal,
    },
  };
  const client = createClient(clientOptions);

  const target: Target = {
    describe: `${displayUrl(settings.baseUrl)} (agent ${settings.primary.agentId})`,
    runId: settings.runId,
    primary: settings.primary,
    otherAgent: settings.otherAgent,
    otherKey: settings.otherKey,
    streamErrorHeader: settings.streamErrorHeader,
    client,
    idempotencyKey: (label = "key") => runScoped(label),
    message: (label = "message") => runScoped(label),
    track: (conversationId: string, owner: Identity = settings.primary) => {
      // A target that answered without an id left nothing to delete; that is the check's verdict, not cleanup's.
      if (typeof conversationId !== "string" || conversationId === "") return;
      appendJournal(settings.journalPath, {
        type: "track",
        conversationId,
        owner: { agentId: owner.agentId, key: keyRole(settings, owner.apiKey) },
        check: checkScopes.getStore()?.title ?? "",
      });
    },
    fc: (max: number) => ({ seed: settings.seed, numRuns: Math.max(1, Math.min(Math.floor(max), settings.runs)) }),
    settleMs: settings.settleMs,
    shared: <T>(fixture: SharedFixture<T>): Promise<T> => {
      const scope = checkScopes.getStore();
      if (scope === undefined || !scope.uses.includes(fixture.name)) {
        throw new HarnessError(
          "configuration",
          `the check "${scope?.title ?? "?"}" uses the shared ${fixture.name} without declaring it in uses`,
        );
      }
      const value = useFixture(
        fixture,
        target,
        ledger,
        (creates) => timeAllowanceMs(creates, settings) - settings.checkTimeoutMs,
        settings.profile,
      );
      if (value === undefined)
        throw new HarnessError(
          "budget",
          `the shared ${fixture.name} needs ${fixture.creates} creates, ${ledger.remaining()} left`,
        );
      return value;
    },
    lanes: (count: number) => {
      // One connection each, so that overlapping requests (and reads after writes) meet whatever
      // replica or worker their connection reached.
      const pools = Array.from({ length: count }, () => createPool(settings.baseUrl, 1, settings.requestTimeoutMs));
      return {
        clients: pools.map((dispatcher) => createClient({ ...clientOptions, dispatcher })),
        close: async () => {
          await Promise.all(pools.map((p) => p.close()));
        },
      };
    },
    remainingCreates: () => {
      const scope = checkScopes.getStore();
      return scope !== undefined ? scope.reservation.reserved - scope.reservation.spent() : ledger.remaining();
    },
  };
  return { settings, ledger, target, stop };
}

/** The process-wide state, built on first use. */
export function workerState(): WorkerState {
  const slot = globalThis as Record<symbol, WorkerState | undefined>;
  return (slot[STATE_KEY] ??= buildState(loadSettings()));
}
