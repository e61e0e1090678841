/**
 * What a check is given and declares: the target (identities, client, budget, shared fixtures)
 * and the check's options. The check runtime builds these; check files only read them.
 */

import type { Identity, ServiceClient } from "../../http/types.ts";

/** One header line, e.g. { name: "X-Fake-Fault", value: "error-after=1" }. */
export interface StreamErrorHeader {
  name: string;
  value: string;
}

/** Optional identities a check may need; missing ones skip the check with a reason. */
export type Need = "otherAgent" | "otherApiKey";

/** What a check is given. */
export interface Target {
  /** Redacted description, e.g. "http://127.0.0.1:4010 (agent agent-a)". */
  describe: string;
  runId: string;
  primary: Identity;
  /** A second agent reachable with the primary key, if configured. */
  otherAgent: Identity | undefined;
  /** A key whose scope excludes the primary key's conversations (same agent id), if configured. */
  otherKey: Identity | undefined;
  client: ServiceClient;
  /**
   * A request header that makes the target end a stream with an `error` event (a test hook
   * many services have), if configured: SSE-6 then provokes one instead of waiting to see one.
   */
  streamErrorHeader?: StreamErrorHeader | undefined;
  /** A fresh Idempotency-Key containing the run id. */
  idempotencyKey(label?: string): string;
  /** A user message containing the run id, so anything the run created is recognisable. */
  message(label?: string): string;
  /** Register a conversation for deletion at the end of the run (as the identity that owns it). */
  track(conversationId: string, owner?: Identity): void;
  /** fast-check parameters: the run's seed and a run count capped by `max`. */
  fc(max: number): { seed: number; numRuns: number };
  /**
   * `count` clients with one connection each, sharing the run's budget, limits and reports;
   * close them when done.
   */
  lanes(count: number): { clients: ServiceClient[]; close(): Promise<void> };
  /** Creates (plain or stream) left in this run's budget. */
  remainingCreates(): number;
  /** A shared fixture the running check declared in `uses`, built on first use. */
  shared<T>(fixture: SharedFixture<T>): Promise<T>;
  /** How long a listing may take to show a finished exchange (--settle-ms). */
  settleMs: number;
}

/** What several checks only read, built once per run by the first check that uses it (shared-fixture.ts). */
export interface SharedFixture<T> {
  readonly name: string;
  /** The creates its build spends at most. */
  readonly creates: number;
  /** When set, the fixture takes what the budget leaves of `creates`, if that is at least this many. */
  readonly minCreates?: number;
  /** What it asks for in the smoke profile, when that is less than `creates`. */
  readonly smokeCreates?: number;
  /** What it asks for in the deep profile, when that is more than `creates`; with `minCreates`, Infinity takes all the budget leaves. */
  readonly deepCreates?: number;
  readonly build: (target: Target) => Promise<T>;
}

export interface CheckOptions {
  /** Upper bound of create operations (plain + stream) the check spends; reserved up front. */
  creates: number;
  /** The family its file holds, when the family can be selected by name (`--only interactions`). */
  family?: string;
  /** Shared fixtures the check reads (built once per run, by the first check that uses each). */
  uses?: readonly SharedFixture<unknown>[];
  /** The check is part of the smoke profile (--profile smoke). */
  smoke?: boolean;
  /** Identities the check needs beyond the primary one. */
  needs?: Need[];
  /** Overrides the default per-check timeout (ms). */
  timeoutMs?: number;
}
