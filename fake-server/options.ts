/**
 * The fake's options (the library's, and through them the command line's), resolved and checked
 * once at start: a bad value is an OptionsError naming the option, so a running fake never meets
 * one.
 */
import { patchBehavior, type Behavior } from "./behavior/behavior.ts";
import { basePathProblem, normalisedBasePath } from "./http/base-path.ts";
import { ClientRuleOptionsError, resolveClientRuleOptions, type ClientRuleOptions } from "./client-rules/options.ts";
import { LLM_PACING, pacingPatch, type PacingSettings } from "./deployment/pacing.ts";
import { NO_FAULTS } from "./faults/fault-plan.ts";
import { ApiError } from "./http/api-error.ts";
import { parseKeySpecs, type ApiKeyGrant } from "./access/keys.ts";
import { AnswerRules } from "./answers/answer-rules.ts";
import { parseFaultSpec } from "./faults/fault-rules.ts";
import { BehaviorSelectionError, selectBehavior, variantList } from "./variants/variants.ts";

export interface FakeServerOptions {
  port?: number; // default 0 = any free port
  host?: string; // default "127.0.0.1"
  keys?: string[]; // "TOKEN=AGENT[,AGENT...][@CHANNEL]"; default DEFAULT_KEYS
  seed?: number; // answer engine seed; default 1
  faults?: boolean; // fault injection allowed; default true
  idempotencyTtlMs?: number; // default 24 h
  deltaDelayMs?: number; // pause between stream deltas; default 3 (so delivery is visibly incremental)
  maxBodyBytes?: number; // default 1 MiB
  requestLogSize?: number; // bounded request log; default 500
  log?: (line: string) => void; // where unexpected errors are logged; default console.error
  clientRules?: Partial<ClientRuleOptions>; // thresholds and caps of the client-rule observer (client-rules/options.ts)
  mutant?: string; // one requirement deliberately broken (variants/mutants.ts); default none
  variants?: string | readonly string[]; // other legal choices in the spec's gaps (variants/variants.ts), or "all"; default none
  pacing?: Partial<PacingSettings>; // LLM-like pacing of creates, each number defaulting to the llm-pacing variant's (deployment/pacing.ts); default none
  basePath?: string; // path prefix before /v1, e.g. "/api/agents-service" (http/base-path.ts); default that of the variants, else none
  cors?: boolean; // CORS headers and preflight answers on /v1 and /__fake (http/cors.ts); default true
  fault?: string; // X-Fake-Fault syntax applied to every /v1 request with neither the header nor a matching fault rule; default none
  answers?: readonly unknown[]; // answer rules every session starts with, back after its reset (the bodies of POST /__fake/answers); default none
  maxConversations?: number; // per session; past it the oldest conversation is evicted; default 10,000
  maxSessions?: number; // sessions kept; past it the least recently used (never "default") is dropped; default 1,000
  stateFile?: string; // conversations of every session loaded from it at start when it exists, written to it on close (state/state-file.ts)
}

export const DEFAULT_KEYS = ["sk-fake-a=agent-a,agent-b@web", "sk-fake-b=agent-a@sms"];

export interface ResolvedOptions {
  readonly port: number;
  readonly host: string;
  readonly keys: ReadonlyMap<string, ApiKeyGrant>;
  readonly seed: number;
  readonly faults: boolean;
  readonly idempotencyTtlMs: number;
  readonly deltaDelayMs: number;
  readonly maxBodyBytes: number;
  readonly requestLogSize: number;
  readonly log: (line: string) => void;
  /** The default behavior with the variants, the mutant and the `pacing` option applied. */
  readonly behavior: Behavior;
  /** The prefix before /v1, without a trailing "/"; "" for none. */
  readonly basePath: string;
  /** The client-rule observer's thresholds, the defaults filled in. */
  readonly clientRules: ClientRuleOptions;
  readonly cors: boolean;
  /** The `fault` option, checked; undefined without one. */
  readonly fault: string | undefined;
  readonly answers: readonly unknown[];
  readonly maxConversations: number;
  readonly maxSessions: number;
  readonly stateFile: string | undefined;
}

/** An option value the fake cannot run with; the message names the option. */
export class OptionsError extends Error {
  override name = "OptionsError";
}

function integerOption(name: string, value: number | undefined, fallback: number, min: number, max: number): number {
  if (value === undefined) return fallback;
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new OptionsError(`${name} must be an integer from ${min} to ${max}, not ${value}`);
  }
  return value;
}

function behaviorOption(options: FakeServerOptions): Behavior {
  // Checked at run time too: the conformance runner passes --fake-option values untyped.
  const { mutant, variants } = options as { mutant?: unknown; variants?: unknown };
  if (mutant !== undefined && typeof mutant !== "string") throw new OptionsError("mutant must be a mutant name");
  const isNames = Array.isArray(variants) && variants.every((v) => typeof v === "string");
  if (variants !== undefined && typeof variants !== "string" && !isNames) {
    throw new OptionsError("variants must be a list of variant names or one comma-separated string");
  }
  try {
    return selectBehavior(options.mutant, variantList(options.variants));
  } catch (error) {
    if (error instanceof BehaviorSelectionError) throw new OptionsError(error.message);
    throw error;
  }
}

/** The `pacing` option as a complete set of numbers, or undefined when it is not given. */
function pacingOption(options: FakeServerOptions): PacingSettings | undefined {
  const { pacing } = options as { pacing?: unknown };
  if (pacing === undefined) return undefined;
  if (typeof pacing !== "object" || pacing === null || Array.isArray(pacing)) {
    throw new OptionsError("pacing must be an object of firstEventMs, deltaDelayMs, minDeltas and maxDeltas");
  }
  const given = pacing as Partial<PacingSettings>;
  const settings: PacingSettings = {
    firstEventMs: integerOption("pacing.firstEventMs", given.firstEventMs, LLM_PACING.firstEventMs, 0, 60_000),
    deltaDelayMs: integerOption("pacing.deltaDelayMs", given.deltaDelayMs, LLM_PACING.deltaDelayMs, 0, 60_000),
    minDeltas: integerOption("pacing.minDeltas", given.minDeltas, LLM_PACING.minDeltas, 1, 1_000),
    maxDeltas: integerOption("pacing.maxDeltas", given.maxDeltas, LLM_PACING.maxDeltas, 1, 1_000),
  };
  if (settings.minDeltas > settings.maxDeltas) {
    throw new OptionsError(
      `pacing.minDeltas (${settings.minDeltas}) must not exceed pacing.maxDeltas (${settings.maxDeltas})`,
    );
  }
  return settings;
}

/** The option, else the behavior's (the one place Behavior.basePath is read); checked either way. */
function basePathOption(options: FakeServerOptions, behavior: Behavior): string {
  const { basePath } = options as { basePath?: unknown };
  if (basePath !== undefined && typeof basePath !== "string")
    throw new OptionsError('basePath must be a string such as "/api/agents-service"');
  const path = normalisedBasePath(basePath ?? behavior.basePath);
  if (path === "") return path;
  const problem = basePathProblem(path);
  if (problem !== undefined)
    throw new OptionsError(`basePath ${JSON.stringify(basePath ?? behavior.basePath)} is not usable: ${problem}`);
  return path;
}

/** The `fault` option, checked now; refused when fault injection is off. */
function faultOption(options: FakeServerOptions): string | undefined {
  const { fault } = options as { fault?: unknown };
  if (fault === undefined) return undefined;
  if (typeof fault !== "string" || fault === "")
    throw new OptionsError('fault must be a string in the X-Fake-Fault syntax, e.g. "first-event-delay=800"');
  if (options.faults === false)
    throw new OptionsError("fault cannot be used when fault injection is disabled (faults: false)");
  orOptionsError(() => parseFaultSpec(fault, NO_FAULTS, "fault"));
  return fault;
}

/** The `answers` option, every rule checked now so a bad file stops the start. */
function answersOption(options: FakeServerOptions): readonly unknown[] {
  const { answers } = options as { answers?: unknown };
  if (answers === undefined) return [];
  if (!Array.isArray(answers))
    throw new OptionsError("answers must be a list of answer rules (the bodies of POST /__fake/answers)");
  orOptionsError(() => AnswerRules.check(answers));
  return answers;
}

/** The `clientRules` option, checked now, with the defaults filled in. */
function clientRulesOption(options: FakeServerOptions): ClientRuleOptions {
  try {
    return resolveClientRuleOptions(options.clientRules);
  } catch (error) {
    if (error instanceof ClientRuleOptionsError) throw new OptionsError(error.message);
    throw error;
  }
}

function orOptionsError<T>(run: () => T): T {
  try {
    return run();
  } catch (error) {
    if (error instanceof ApiError) throw new OptionsError(error.message);
    throw error;
  }
}

export function resolveOptions(options: FakeServerOptions = {}): ResolvedOptions {
  const selected = behaviorOption(options);
  const pacing = pacingOption(options);
  const behavior = pacing === undefined ? selected : patchBehavior(selected, [pacingPatch(pacing)]);
  const { stateFile } = options as { stateFile?: unknown };
  if (stateFile !== undefined && (typeof stateFile !== "string" || stateFile === ""))
    throw new OptionsError("stateFile must be a file path");
  return {
    port: integerOption("port", options.port, 0, 0, 65_535),
    host: options.host ?? "127.0.0.1",
    keys: parseKeySpecs(options.keys ?? DEFAULT_KEYS),
    seed: integerOption("seed", options.seed, 1, 0, 0xffff_ffff),
    faults: options.faults ?? true,
    idempotencyTtlMs: integerOption("idempotencyTtlMs", options.idempotencyTtlMs, 24 * 60 * 60 * 1000, 1, 2 ** 40),
    deltaDelayMs: integerOption("deltaDelayMs", options.deltaDelayMs, 3, 0, 60_000),
    maxBodyBytes: integerOption("maxBodyBytes", options.maxBodyBytes, 1024 * 1024, 1, 2 ** 31),
    requestLogSize: integerOption("requestLogSize", options.requestLogSize, 500, 0, 1_000_000),
    log: options.log ?? ((line) => console.error(line)),
    behavior,
    basePath: basePathOption(options, behavior),
    cors: options.cors ?? true,
    fault: faultOption(options),
    answers: answersOption(options),
    maxConversations: integerOption("maxConversations", options.maxConversations, 10_000, 1, 100_000_000),
    maxSessions: integerOption("maxSessions", options.maxSessions, 1_000, 2, 1_000_000),
    stateFile,
    clientRules: clientRulesOption(options),
  };
}
