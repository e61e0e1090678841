/**
 * What the runner hands to the worker that runs the checks (through vitest's provide/inject):
 * the resolved target, its identities, budgets and the run's identifiers.
 * Validated again on the worker side, so a wrongly started run fails loudly.
 */

import { z } from "zod";
import type { Identity } from "../../http/types.ts";

const IdentitySchema = z.object({
  apiKey: z.string().min(1).nullable(),
  agentId: z.string().min(1),
}) satisfies z.ZodType<Identity>;

export const RunSettingsSchema = z.object({
  baseUrl: z.url(),
  primary: IdentitySchema,
  otherAgent: IdentitySchema.optional(),
  otherKey: IdentitySchema.optional(),
  /** A header that makes the target end a stream with an `error` event (SSE-6), if one is known. */
  streamErrorHeader: z.object({ name: z.string().min(1), value: z.string().min(1) }).optional(),
  runId: z.string().regex(/^[a-z0-9]+$/),
  seed: z.int().nonnegative(),
  /** fast-check's path of one run of the interaction property, to replay it (--path). */
  path: z.string().optional(),
  /** The command line that replays a run of the interaction property, with "{path}" for fast-check's path (runner/replay-command.ts). */
  replayCommand: z.string().min(1),
  runs: z.int().positive(),
  maxCreates: z.int().nonnegative(),
  concurrency: z.int().positive(),
  requestTimeoutMs: z.int().positive(),
  firstEventTimeoutMs: z.int().positive(),
  idleTimeoutMs: z.int().positive(),
  streamTimeoutMs: z.int().positive(),
  checkTimeoutMs: z.int().positive(),
  maxResponseBytes: z.int().positive(),
  maxStreamBytes: z.int().positive(),
  only: z.array(z.string()),
  /** --profile: smoke runs only the checks marked for it; deep runs every check and gives shared fixtures that ask for it (the interaction property) the rest of the budget. */
  profile: z.enum(["full", "smoke", "deep"]),
  /** --shard: this run's share of the requirements; checks outside the interactions family run only for these. */
  shard: z
    .object({ index: z.int().positive(), count: z.int().positive(), requirements: z.array(z.string()) })
    .optional(),
  /** Requirement globs the user excluded (--exclude, --profile, --rerun-failed): reported as skipped by choice. */
  exclude: z.array(z.string()),
  /** Retries of a "try later" answer (429, 503, 409 with Retry-After) per request. */
  maxRetries: z.int().nonnegative(),
  /** Requests per second across the run; none when absent. */
  maxRps: z.number().positive().optional(),
  /** How long a listing-based judgement waits for the listing to settle. */
  settleMs: z.int().nonnegative(),
  /** Headers sent on every request (--header); their values are secrets in every output. */
  headers: z.record(z.string(), z.string()),
  /** JSON-lines file where the worker records what the run created, for cleanup by the runner. */
  journalPath: z.string().min(1),
  /** Where the runner writes that the run is interrupted (stop-request.ts reads it). */
  stopPath: z.string().min(1).optional(),
});

export type RunSettings = z.infer<typeof RunSettingsSchema>;

/** The key under which the runner provides the settings. */
export const RUN_SETTINGS_KEY = "conformanceRunSettings";

declare module "vitest" {
  export interface ProvidedContext {
    conformanceRunSettings: RunSettings;
  }
}
