/**
 * The property outside a conformance run: lanes on a base URL with the suite's own client and
 * limits, for the project's tests and for `npm run interactions`, which run many seeds against
 * the fake, its variants and its mutants.
 */
import { randomUUID } from "node:crypto";
import { Semaphore } from "../http/concurrency.ts";
import { createClient, createPool } from "../http/client.ts";
import { Redactor } from "../http/redact.ts";
import type { Identity } from "../http/types.ts";
import { LANES } from "./commands.ts";
import type { InteractionTarget } from "./session.ts";

export interface StandaloneOptions {
  readonly baseUrl: string;
  readonly primary: Identity;
  readonly otherAgent?: Identity | undefined;
  readonly otherKey?: Identity | undefined;
  readonly settleMs?: number;
  readonly requestTimeoutMs?: number;
}

/** A target's keys and agents as the property's three identities: primary, another agent under its key, its agent under another key. */
export function identitiesOf(keys: {
  readonly apiKey: string;
  readonly agentId: string;
  readonly otherAgentId: string;
  readonly otherApiKey: string;
}): Pick<StandaloneOptions, "primary" | "otherAgent" | "otherKey"> {
  return {
    primary: { apiKey: keys.apiKey, agentId: keys.agentId },
    otherAgent: { apiKey: keys.apiKey, agentId: keys.otherAgentId },
    otherKey: { apiKey: keys.otherApiKey, agentId: keys.agentId },
  };
}

export function standaloneTarget(options: StandaloneOptions): { target: InteractionTarget; close(): Promise<void> } {
  const timeout = options.requestTimeoutMs ?? 10_000;
  const limits = {
    requestTimeoutMs: timeout,
    firstEventTimeoutMs: timeout,
    idleTimeoutMs: timeout,
    streamTimeoutMs: 3 * timeout,
    maxResponseBytes: 1 << 20,
    maxStreamBytes: 4 << 20,
  };
  const pools = Array.from({ length: LANES }, () => createPool(options.baseUrl, 1, timeout));
  const redactor = new Redactor([options.primary.apiKey, options.otherAgent?.apiKey, options.otherKey?.apiKey]);
  const run = randomUUID().slice(0, 8);
  let counter = 0;
  const named = (label: string) => `conf-${run}-${label}-${++counter}`;
  const lanes = pools.map((dispatcher) =>
    createClient({
      baseUrl: options.baseUrl,
      primary: options.primary,
      limits,
      dispatcher,
      semaphore: new Semaphore(LANES),
      redactor,
      idempotencyKey: () => named("key"),
      maxRetries: 4,
    }),
  );
  const target: InteractionTarget = {
    lanes,
    identities: { primary: options.primary, otherAgent: options.otherAgent, otherKey: options.otherKey },
    message: named,
    idempotencyKey: named,
    track: () => {},
    remainingCreates: () => Number.POSITIVE_INFINITY,
    settleMs: options.settleMs ?? 3_000,
  };
  return { target, close: async () => void (await Promise.all(pools.map((p) => p.close()))) };
}
