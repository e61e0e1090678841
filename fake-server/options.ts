import type { Behavior } from "./behavior.ts";
import type { ClientRuleOptions } from "./client-rules/options.ts";
import { parseKeySpecs, type ApiKeyGrant } from "./keys.ts";
import { BehaviorSelectionError, selectBehavior, variantList } from "./variants.ts";

export interface FakeServerOptions {
  port?: number;              // default 0 = any free port
  host?: string;              // default "127.0.0.1"
  keys?: string[];            // "TOKEN=AGENT[,AGENT...][@CHANNEL]"; default DEFAULT_KEYS
  seed?: number;              // answer engine seed; default 1
  faults?: boolean;           // fault injection allowed; default true
  idempotencyTtlMs?: number;  // default 24 h
  deltaDelayMs?: number;      // pause between stream deltas; default 3 (so delivery is visibly incremental)
  maxBodyBytes?: number;      // default 1 MiB
  requestLogSize?: number;    // bounded request log; default 500
  log?: (line: string) => void; // where unexpected errors are logged; default console.error
  clientRules?: Partial<ClientRuleOptions>; // thresholds and caps of the client-rule observer (client-rules/options.ts)
  mutant?: string;            // one requirement deliberately broken (mutants.ts); default none
  variants?: string | readonly string[]; // other legal choices in the spec's gaps (variants.ts), or "all"; default none
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
  /** The default behavior with the variants and the mutant applied. */
  readonly behavior: Behavior;
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

export function resolveOptions(options: FakeServerOptions = {}): ResolvedOptions {
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
    behavior: behaviorOption(options),
  };
}
