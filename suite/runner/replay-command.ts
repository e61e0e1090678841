/**
 * The command line that replays one run of the interaction property (a counterexample's
 * `replay`): the command the user ran (the npm script in this repository, the bin elsewhere),
 * every setting that chose the target, its identities and what the property met there (profile,
 * budget, fake options or mutant, bounds), then `--only interactions --seed S --path P` and a
 * report directory of its own, so the replay never overwrites the failing run's reports.
 * Secrets appear as references to environment variables, never as values: a key given as a
 * flag value is written `"$CONFORMANCE_API_KEY"`, and a shell comment at the end of the line
 * says which variables to set. `{path}` stands for fast-check's path, which the property knows.
 */

import { DEFAULTS, PROFILE_MAX_CREATES, type ConformanceConfig } from "./config.ts";
import { INTERACTIONS_FAMILY } from "../checks/runtime/selection.ts";

/** Where fast-check's path goes: the property fills it in. */
export const PATH_PLACEHOLDER = "{path}";

/** What the runner knows of how it was started. */
export interface Invocation {
  /** The environment the settings were read from (secrets given there are referenced by name). */
  env: NodeJS.ProcessEnv;
  /** The arguments as given (to tell a flag's value from its variable's). */
  argv: readonly string[];
}

/** This repository's own script, or the bin everywhere else (a consumer project, a CI step). */
export function launcherOf(env: NodeJS.ProcessEnv): string {
  return env["npm_lifecycle_event"] === "conformance" && env["npm_package_name"] === "agent-service-conformance"
    ? "npm run conformance --"
    : "npx agent-conformance";
}

/** A word as a POSIX shell reads it back unchanged. */
export function shellWord(text: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(text) ? text : `'${text.replace(/'/g, `'\\''`)}'`;
}

/** "X-Gateway-Key" → X_GATEWAY_KEY: the variable a header's value is referenced by. */
function variableOfHeader(name: string): string {
  return (
    name
      .toUpperCase()
      .replace(/[^A-Z0-9]+/g, "_")
      .replace(/^_+|_+$/g, "") || "HEADER_VALUE"
  );
}

function givenAsFlag(argv: readonly string[], flag: string): boolean {
  return argv.some((arg) => arg === `--${flag}` || arg.startsWith(`--${flag}=`));
}

/** Settings whose value the replay repeats when it is not the default: they change what the property meets. */
const BOUNDS = [
  ["maxRetries", "max-retries"],
  ["settleMs", "settle-ms"],
  ["concurrency", "concurrency"],
  ["requestTimeoutMs", "request-timeout"],
  ["firstEventTimeoutMs", "first-event-timeout"],
  ["idleTimeoutMs", "idle-timeout"],
  ["streamTimeoutMs", "stream-timeout"],
  ["checkTimeoutMs", "check-timeout"],
  ["maxResponseBytes", "max-response-bytes"],
  ["maxStreamBytes", "max-stream-bytes"],
  ["runs", "runs"],
] as const satisfies readonly (readonly [keyof typeof DEFAULTS & keyof ConformanceConfig, string])[];

/**
 * The replay line of a run with this configuration, `{path}` left for the property. `seed` is
 * the seed the run was given (under --shard the shard adds its number again, as it did).
 */
export function replayCommand(config: ConformanceConfig, seed: number, invocation: Invocation | undefined): string {
  const words: string[] = [launcherOf(invocation?.env ?? {})];
  const toSet: string[] = [];
  const flag = (name: string, value?: string) => words.push(value === undefined ? `--${name}` : `--${name} ${value}`);
  /** A secret as its variable; said at the end of the line when the run had it from a flag instead. */
  const secret = (name: string, variable: string, value: string, what: string) => {
    flag(name, `"$${variable}"`);
    const fromVariable =
      invocation !== undefined && invocation.env[variable]?.trim() === value && !givenAsFlag(invocation.argv, name);
    if (!fromVariable) toSet.push(`${variable} to ${what}`);
  };

  if (config.baseUrl !== undefined) flag("base-url", shellWord(config.baseUrl));
  if (config.apiKey !== undefined)
    secret("api-key", "CONFORMANCE_API_KEY", config.apiKey, "the key given with --api-key");
  if (config.agentId !== undefined) flag("agent-id", shellWord(config.agentId));
  if (config.otherAgentId !== undefined) flag("other-agent-id", shellWord(config.otherAgentId));
  if (config.otherApiKey !== undefined)
    secret("other-api-key", "CONFORMANCE_OTHER_API_KEY", config.otherApiKey, "the key given with --other-api-key");
  if (config.streamErrorHeader !== undefined)
    flag("stream-error-header", shellWord(`${config.streamErrorHeader.name}: ${config.streamErrorHeader.value}`));
  // Headers from CONFORMANCE_HEADER are read from it again; a flag's value becomes a variable of its own.
  const headersFromVariable =
    invocation !== undefined &&
    !givenAsFlag(invocation.argv, "header") &&
    (invocation.env["CONFORMANCE_HEADER"] ?? "") !== "";
  if (!headersFromVariable) {
    for (const name of Object.keys(config.headers)) {
      const variable = variableOfHeader(name);
      flag("header", `"${name}: $${variable}"`);
      toSet.push(`${variable} to the value given with --header ${name}`);
    }
  }
  for (const [name, value] of Object.entries(config.fakeOptions)) {
    flag("fake-option", shellWord(`${name}=${typeof value === "string" ? value : JSON.stringify(value)}`));
  }
  flag("profile", config.profile);
  if (config.maxCreates !== undefined && config.maxCreates !== PROFILE_MAX_CREATES[config.profile])
    flag("max-creates", String(config.maxCreates));
  if (config.maxRps !== undefined) flag("max-rps", String(config.maxRps));
  for (const [key, name] of BOUNDS) if (config[key] !== DEFAULTS[key]) flag(name, String(config[key]));
  if (config.strict) flag("strict");
  if (config.checksDir !== DEFAULTS.checksDir) flag("checks-dir", shellWord(config.checksDir));
  if (config.shard !== undefined) flag("shard", `${config.shard.index}/${config.shard.count}`);
  flag("only", INTERACTIONS_FAMILY);
  flag("seed", String(seed));
  flag("path", PATH_PLACEHOLDER);
  flag("report-dir", `${shellWord(`${config.reportDir.replace(/\/+$/, "")}-replay-${seed}-`)}${PATH_PLACEHOLDER}`);
  const line = words.join(" ");
  return toSet.length === 0 ? line : `${line}  # set ${toSet.join(", ")}`;
}
