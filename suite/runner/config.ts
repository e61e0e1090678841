/**
 * The suite's configuration: flags > environment > defaults, validated with zod.
 * Every option has a flag (--max-creates) and an environment variable (CONFORMANCE_MAX_CREATES).
 * Keys are held here but never printed: see redact.ts.
 */

import { parseArgs } from "node:util";
import { z } from "zod";

const MiB = 1024 * 1024;

/** Create caps per profile: full (the default) judges everything; smoke, per pull request, every MUST family. */
export const PROFILE_MAX_CREATES = { full: 100, smoke: 25 } as const;
export type Profile = keyof typeof PROFILE_MAX_CREATES;

export const DEFAULTS = {
  maxCreates: PROFILE_MAX_CREATES.full,
  profile: "full" as Profile,
  maxRetries: 4,
  settleMs: 3_000,
  concurrency: 4,
  requestTimeoutMs: 10_000,
  firstEventTimeoutMs: 10_000,
  idleTimeoutMs: 10_000,
  streamTimeoutMs: 30_000,
  checkTimeoutMs: 120_000,
  maxResponseBytes: 1 * MiB,
  maxStreamBytes: 4 * MiB,
  runs: 25,
  reportDir: "reports",
  checksDir: "suite/checks",
} as const;

/** The identities the embedded fake serves by default (fake-server DEFAULT_KEYS). */
export const FAKE_IDENTITIES = {
  apiKey: "sk-fake-a",
  agentId: "agent-a",
  otherAgentId: "agent-b",
  otherApiKey: "sk-fake-b",
} as const;

/** A whole number given as a number (programmatic use) or as decimal digits (flags, environment). */
const wholeNumber = (min: number, max: number) =>
  z
    .union([z.number(), z.string().trim().regex(/^\d+$/).transform(Number)], { error: "must be a whole number" })
    .pipe(z.int("must be a whole number").min(min, `must be at least ${min}`).max(max, `must be at most ${max}`));

const flag = z.union([
  z.boolean(),
  z.enum(["1", "true", "yes", "0", "false", "no", ""]).transform((v) => v === "1" || v === "true" || v === "yes"),
]);

const nonEmpty = z.string().trim().min(1, "must not be empty");

const baseUrl = z
  .string()
  .trim()
  .superRefine((value, ctx) => {
    // An unset CI variable often arrives as an empty string: never a reason to test the embedded fake instead.
    if (value === "") {
      ctx.addIssue({ code: "custom", message: "is empty: give the service's base URL, or leave it out (unset) to run against the embedded fake" });
      return;
    }
    let url: URL;
    try {
      url = new URL(value);
    } catch {
      ctx.addIssue({ code: "custom", message: "must be an absolute http(s) URL, e.g. https://api.example.com" });
      return;
    }
    if (url.protocol !== "http:" && url.protocol !== "https:") {
      ctx.addIssue({ code: "custom", message: "must use http or https" });
    }
    if (url.username !== "" || url.password !== "") {
      ctx.addIssue({ code: "custom", message: "must not carry credentials; pass the key with --api-key" });
    }
    if (url.search !== "" || url.hash !== "") {
      ctx.addIssue({ code: "custom", message: "must not carry a query or a fragment" });
    }
  })
  .transform((value) => value.replace(/\/+$/, ""));

/** A header of the target's that makes it end a stream with an `error` event (SSE-6). */
const streamErrorHeaderSchema = z.object({
  name: z.string().regex(/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/, 'must be one header line "Name: value" whose name is a token, e.g. "X-Test-Fail: stream"'),
  value: z.string().trim().min(1, 'must be one header line "Name: value" with a value').regex(/^[^\r\n\0]*$/, "must be a single line"),
});

/** "Name: value" as flags and the environment give it, or the parsed { name, value } (programmatic use). */
const headerLine = z.union(
  [
    streamErrorHeaderSchema,
    z
      .string()
      .transform((line) => {
        const colon = line.indexOf(":");
        return colon === -1 ? { name: "", value: "" } : { name: line.slice(0, colon).trim(), value: line.slice(colon + 1).trim() };
      })
      .pipe(streamErrorHeaderSchema),
  ],
  { error: 'must be one header line "Name: value", e.g. "X-Test-Fail: stream"' },
);

/** A requirement glob for --only: letters, digits, '-', and the wildcards * and ?. */
const onlyGlob = z.string().trim().regex(/^[A-Za-z0-9*?-]+$/, "must be a requirement ID or glob such as SSE-* or IDEM-1");

const onlyList = z
  .union([z.string(), z.array(z.string())])
  .transform((value) => (Array.isArray(value) ? value : [value]).flatMap((v) => v.split(",")).map((v) => v.trim()).filter((v) => v !== ""))
  .pipe(z.array(onlyGlob));

/** Headers the harness sets itself: --header must not replace them. */
const OWN_HEADERS = new Set(["authorization", "content-type", "content-length", "idempotency-key", "accept", "host", "transfer-encoding", "connection"]);

/** --header "Name: value", repeatable: a map of lower-case names to values. */
const extraHeaders = z
  .union([z.string(), z.array(z.union([z.string(), streamErrorHeaderSchema])), z.record(z.string(), z.string())])
  // The environment holds one header per line; a map is what an earlier validation produced.
  .transform((value) => {
    if (Array.isArray(value)) return value;
    if (typeof value === "string") return value.split(/\r?\n/).filter((line) => line.trim() !== "");
    return Object.entries(value).map(([name, headerValue]) => ({ name, value: headerValue }));
  })
  .pipe(z.array(headerLine))
  .superRefine((lines, ctx) => {
    for (const line of lines) {
      if (OWN_HEADERS.has(line.name.toLowerCase())) {
        ctx.addIssue({ code: "custom", message: `${line.name} is set by the suite itself and cannot be replaced` });
      }
    }
  })
  .transform((lines) => Object.fromEntries(lines.map((line) => [line.name.toLowerCase(), line.value])) as Record<string, string>);

/** Requests per second: a positive number (decimals allowed). */
const perSecond = z
  .union([z.number(), z.string().trim().regex(/^\d+(\.\d+)?$/).transform(Number)], { error: "must be a positive number" })
  .pipe(z.number().positive("must be a positive number").max(100_000, "must be at most 100000"));

export const ConfigSchema = z
  .object({
    baseUrl: baseUrl.optional(),
    apiKey: nonEmpty.optional(),
    agentId: nonEmpty.optional(),
    otherAgentId: nonEmpty.optional(),
    otherApiKey: nonEmpty.optional(),
    streamErrorHeader: headerLine.optional(),
    /** Undefined: the profile's cap (PROFILE_MAX_CREATES). */
    maxCreates: wholeNumber(0, 100_000).optional(),
    profile: z.enum(["full", "smoke"], { error: 'must be "full" or "smoke"' }).default(DEFAULTS.profile),
    maxRetries: wholeNumber(0, 100).default(DEFAULTS.maxRetries),
    maxRps: perSecond.optional(),
    settleMs: wholeNumber(0, 600_000).default(DEFAULTS.settleMs),
    headers: extraHeaders.default({}),
    exclude: onlyList.default([]),
    rerunFailed: nonEmpty.optional(),
    concurrency: wholeNumber(1, 64).default(DEFAULTS.concurrency),
    requestTimeoutMs: wholeNumber(1, 600_000).default(DEFAULTS.requestTimeoutMs),
    firstEventTimeoutMs: wholeNumber(1, 600_000).default(DEFAULTS.firstEventTimeoutMs),
    idleTimeoutMs: wholeNumber(1, 600_000).default(DEFAULTS.idleTimeoutMs),
    streamTimeoutMs: wholeNumber(1, 3_600_000).default(DEFAULTS.streamTimeoutMs),
    checkTimeoutMs: wholeNumber(1, 3_600_000).default(DEFAULTS.checkTimeoutMs),
    maxResponseBytes: wholeNumber(1024, 1024 * MiB).default(DEFAULTS.maxResponseBytes),
    maxStreamBytes: wholeNumber(1024, 1024 * MiB).default(DEFAULTS.maxStreamBytes),
    seed: wholeNumber(0, 2 ** 31 - 1).optional(),
    /** fast-check's path of a failing run (with --seed, runs exactly that run of the interaction property). */
    path: z.string().trim().regex(/^\d+(:\d+)*$/, "must be a fast-check path such as 3 or 3:1:0, as a counterexample prints it").optional(),
    runs: wholeNumber(1, 10_000).default(DEFAULTS.runs),
    only: onlyList.default([]),
    strict: flag.default(false),
    reportDir: nonEmpty.default(DEFAULTS.reportDir),
    checksDir: nonEmpty.default(DEFAULTS.checksDir),
    /** Known failures that do not fail the run (suite/runner/baseline.ts). */
    baseline: nonEmpty.optional(),
    /** Options passed to createFakeServer when no base URL is given (e.g. a mutant for the gate). */
    fakeOptions: z.record(z.string(), z.unknown()).default({}),
    help: flag.default(false),
  })
  .superRefine((config, ctx) => {
    if (config.baseUrl !== undefined) {
      if (config.apiKey === undefined) {
        ctx.addIssue({ code: "custom", path: ["apiKey"], message: "is required with --base-url" });
      }
      if (config.agentId === undefined) {
        ctx.addIssue({ code: "custom", path: ["agentId"], message: "is required with --base-url" });
      }
      if (Object.keys(config.fakeOptions).length > 0) {
        ctx.addIssue({ code: "custom", path: ["fakeOptions"], message: "only applies to the embedded fake (no --base-url)" });
      }
    }
  });

export type ConformanceConfig = z.output<typeof ConfigSchema>;
export type ConformanceInput = z.input<typeof ConfigSchema>;

interface OptionSpec {
  key: keyof ConformanceInput;
  flag: string;
  env: string | undefined;
  type: "string" | "boolean";
  multiple?: boolean;
  value?: string;
  help: string;
}

/** One row per option: its flag, its environment variable and its help line. */
export const OPTIONS: readonly OptionSpec[] = [
  { key: "baseUrl", flag: "base-url", env: "CONFORMANCE_BASE_URL", type: "string", value: "URL", help: "target base URL (may carry a path prefix); without it the embedded fake is started" },
  { key: "apiKey", flag: "api-key", env: "CONFORMANCE_API_KEY", type: "string", value: "KEY", help: "API key of the primary identity (required with --base-url)" },
  { key: "agentId", flag: "agent-id", env: "CONFORMANCE_AGENT_ID", type: "string", value: "ID", help: "agent the primary key may use (required with --base-url)" },
  { key: "otherAgentId", flag: "other-agent-id", env: "CONFORMANCE_OTHER_AGENT_ID", type: "string", value: "ID", help: "a second agent reachable with the same key (scope checks)" },
  { key: "otherApiKey", flag: "other-api-key", env: "CONFORMANCE_OTHER_API_KEY", type: "string", value: "KEY", help: "a key for the same agent whose scope excludes the primary key's conversations" },
  { key: "streamErrorHeader", flag: "stream-error-header", env: "CONFORMANCE_STREAM_ERROR_HEADER", type: "string", value: '"NAME: VALUE"', help: "a header that makes the target end a stream with an error event, to judge SSE-6 (the embedded fake: X-Fake-Fault: error-after=1)" },
  { key: "profile", flag: "profile", env: "CONFORMANCE_PROFILE", type: "string", value: "full|smoke", help: `full (default: every check, at most ${PROFILE_MAX_CREATES.full} creates) or smoke (per pull request: every MUST family, at most ${PROFILE_MAX_CREATES.smoke} creates)` },
  { key: "maxCreates", flag: "max-creates", env: "CONFORMANCE_MAX_CREATES", type: "string", value: "N", help: `cap on creates the target accepts, plain and stream (default: the profile's, ${PROFILE_MAX_CREATES.full} or ${PROFILE_MAX_CREATES.smoke})` },
  { key: "maxRetries", flag: "max-retries", env: "CONFORMANCE_MAX_RETRIES", type: "string", value: "N", help: `retries of a 429, a 503 or a 409 with Retry-After, per request, honouring Retry-After (default ${DEFAULTS.maxRetries})` },
  { key: "maxRps", flag: "max-rps", env: "CONFORMANCE_MAX_RPS", type: "string", value: "N", help: "requests per second across the whole run (default: no pacing)" },
  { key: "settleMs", flag: "settle-ms", env: "CONFORMANCE_SETTLE_MS", type: "string", value: "MS", help: `how long a listing may take to show a finished exchange (default ${DEFAULTS.settleMs})` },
  { key: "headers", flag: "header", env: "CONFORMANCE_HEADER", type: "string", multiple: true, value: '"NAME: VALUE"', help: "a header sent on every request, e.g. a gateway key (repeatable; values are redacted in every output)" },
  { key: "concurrency", flag: "concurrency", env: "CONFORMANCE_CONCURRENCY", type: "string", value: "N", help: `requests in flight at once (default ${DEFAULTS.concurrency})` },
  { key: "requestTimeoutMs", flag: "request-timeout", env: "CONFORMANCE_REQUEST_TIMEOUT", type: "string", value: "MS", help: `whole plain request, headers and body (default ${DEFAULTS.requestTimeoutMs})` },
  { key: "firstEventTimeoutMs", flag: "first-event-timeout", env: "CONFORMANCE_FIRST_EVENT_TIMEOUT", type: "string", value: "MS", help: `stream: until the first event (default ${DEFAULTS.firstEventTimeoutMs})` },
  { key: "idleTimeoutMs", flag: "idle-timeout", env: "CONFORMANCE_IDLE_TIMEOUT", type: "string", value: "MS", help: `stream: longest silence between reads (default ${DEFAULTS.idleTimeoutMs})` },
  { key: "streamTimeoutMs", flag: "stream-timeout", env: "CONFORMANCE_STREAM_TIMEOUT", type: "string", value: "MS", help: `stream: whole stream (default ${DEFAULTS.streamTimeoutMs})` },
  { key: "checkTimeoutMs", flag: "check-timeout", env: "CONFORMANCE_CHECK_TIMEOUT", type: "string", value: "MS", help: `one check, all its requests (default ${DEFAULTS.checkTimeoutMs})` },
  { key: "maxResponseBytes", flag: "max-response-bytes", env: "CONFORMANCE_MAX_RESPONSE_BYTES", type: "string", value: "BYTES", help: `cap on a JSON response body (default ${DEFAULTS.maxResponseBytes})` },
  { key: "maxStreamBytes", flag: "max-stream-bytes", env: "CONFORMANCE_MAX_STREAM_BYTES", type: "string", value: "BYTES", help: `cap on a stream body (default ${DEFAULTS.maxStreamBytes})` },
  { key: "seed", flag: "seed", env: "CONFORMANCE_SEED", type: "string", value: "N", help: "fast-check seed (default: random, printed in the report)" },
  { key: "path", flag: "path", env: "CONFORMANCE_PATH", type: "string", value: "PATH", help: "with --seed, run exactly the interaction property's run a counterexample names (--only interactions --seed S --path P)" },
  { key: "runs", flag: "runs", env: "CONFORMANCE_RUNS", type: "string", value: "N", help: `cap on fast-check runs per property (default ${DEFAULTS.runs})` },
  { key: "only", flag: "only", env: "CONFORMANCE_ONLY", type: "string", multiple: true, value: "GLOB", help: "run only requirements matching the glob (repeatable or comma list: SSE-*,IDEM-1)" },
  { key: "exclude", flag: "exclude", env: "CONFORMANCE_EXCLUDE", type: "string", multiple: true, value: "GLOB", help: "leave out requirements matching the glob (repeatable or comma list); reported as skipped by choice" },
  { key: "rerunFailed", flag: "rerun-failed", env: "CONFORMANCE_RERUN_FAILED", type: "string", value: "FILE", help: "run only what failed, warned or was inconclusive in that conformance.json, and the MUSTs it skipped that you had not excluded" },
  { key: "strict", flag: "strict", env: "CONFORMANCE_STRICT", type: "boolean", help: "a failed SHOULD fails the run" },
  { key: "reportDir", flag: "report-dir", env: "CONFORMANCE_REPORT_DIR", type: "string", value: "DIR", help: `where conformance.json, junit.xml and report.html go, also when the run stops with exit 2 (default ${DEFAULTS.reportDir})` },
  { key: "checksDir", flag: "checks-dir", env: "CONFORMANCE_CHECKS_DIR", type: "string", value: "DIR", help: "directory of *.check.ts files to run instead of the suite's own checks (the default)" },
  { key: "baseline", flag: "baseline", env: "CONFORMANCE_BASELINE", type: "string", value: "FILE", help: "JSON file of known failures that do not fail the run (see docs/USING.md)" },
  { key: "fakeOptions", flag: "fake-option", env: undefined, type: "string", multiple: true, value: "NAME=VALUE", help: "option for the embedded fake (repeatable; VALUE is JSON or a string), e.g. --fake-option seed=7" },
  { key: "help", flag: "help", env: undefined, type: "boolean", help: "print this help" },
];

export type ConfigResult =
  | { ok: true; config: ConformanceConfig }
  | { ok: false; errors: string[] };

/** `name=value` pairs; a value that parses as JSON is taken as JSON (numbers, booleans, arrays). */
function parseFakeOptions(pairs: readonly string[]): { options: Record<string, unknown>; errors: string[] } {
  const options: Record<string, unknown> = Object.create(null);
  const errors: string[] = [];
  for (const pair of pairs) {
    const eq = pair.indexOf("=");
    const name = eq === -1 ? "" : pair.slice(0, eq).trim();
    if (name === "" || !/^[A-Za-z][A-Za-z0-9]*$/.test(name)) {
      errors.push(`--fake-option ${JSON.stringify(pair)}: expected NAME=VALUE with a camelCase option name`);
      continue;
    }
    const raw = pair.slice(eq + 1);
    try {
      options[name] = JSON.parse(raw);
    } catch {
      options[name] = raw;
    }
  }
  return { options: { ...options }, errors };
}

function describeKey(key: PropertyKey | undefined): string {
  const spec = OPTIONS.find((o) => o.key === key);
  if (spec === undefined) return String(key ?? "configuration");
  return spec.env === undefined ? `--${spec.flag}` : `--${spec.flag} (or ${spec.env})`;
}

/** Validates a programmatic or merged configuration; messages name the flag and variable. */
export function validateConfig(input: ConformanceInput): ConfigResult {
  const result = ConfigSchema.safeParse(input);
  if (result.success) return { ok: true, config: result.data };
  return {
    ok: false,
    errors: result.error.issues.map((issue) => `${describeKey(issue.path[0])}: ${issue.message}`),
  };
}

/**
 * The same key for both keys, or the same agent for both agents, would make the scope checks
 * compare an identity with itself and blame the service: a setup error, named before anything
 * is sent (keys are compared, never printed).
 */
export function sameIdentityErrors(input: ConformanceInput): string[] {
  const same = (a: unknown, b: unknown) => typeof a === "string" && typeof b === "string" && a.trim() !== "" && a.trim() === b.trim();
  const errors: string[] = [];
  if (same(input.apiKey, input.otherApiKey)) {
    errors.push("--api-key and --other-api-key (CONFORMANCE_API_KEY, CONFORMANCE_OTHER_API_KEY) are the same key: --other-api-key must be a key whose scope excludes the first key's conversations, e.g. another channel's");
  }
  if (same(input.agentId, input.otherAgentId)) {
    errors.push("--agent-id and --other-agent-id (CONFORMANCE_AGENT_ID, CONFORMANCE_OTHER_AGENT_ID) name the same agent: --other-agent-id must be a second agent the same key can use");
  }
  return errors;
}

/**
 * Where the reports go, read from raw arguments and the environment without validating them:
 * a usage error still leaves its reports there (the default when the flag cannot be read).
 */
export function reportDirOf(argv: readonly string[], env: NodeJS.ProcessEnv): string {
  let fromFlag: string | undefined;
  argv.forEach((arg, i) => {
    if (arg.startsWith("--report-dir=")) fromFlag = arg.slice("--report-dir=".length);
    else if (arg === "--report-dir" && argv[i + 1] !== undefined && !argv[i + 1]?.startsWith("--")) fromFlag = argv[i + 1];
  });
  const chosen = fromFlag ?? env["CONFORMANCE_REPORT_DIR"];
  return chosen !== undefined && chosen.trim() !== "" ? chosen : DEFAULTS.reportDir;
}

/** Flags > environment > defaults. Unknown flags and stray arguments are errors. */
export function parseConfig(argv: readonly string[], env: NodeJS.ProcessEnv): ConfigResult {
  const parseOptions: Record<string, { type: "string" | "boolean"; multiple?: boolean }> = {};
  for (const o of OPTIONS) parseOptions[o.flag] = o.multiple ? { type: o.type, multiple: true } : { type: o.type };
  let values: Record<string, string | boolean | (string | boolean)[] | undefined>;
  try {
    const parsed = parseArgs({ args: [...argv], options: parseOptions, strict: true, allowPositionals: false });
    values = parsed.values;
  } catch (error) {
    return { ok: false, errors: [error instanceof Error ? error.message : String(error)] };
  }

  const merged: Record<string, unknown> = {};
  const errors: string[] = [];
  for (const o of OPTIONS) {
    const fromFlag = values[o.flag];
    if (o.key === "fakeOptions") {
      const pairs = Array.isArray(fromFlag) ? fromFlag.map(String) : [];
      const fake = parseFakeOptions(pairs);
      errors.push(...fake.errors);
      merged.fakeOptions = fake.options;
      continue;
    }
    const fromEnv = o.env === undefined ? undefined : env[o.env];
    if (fromFlag !== undefined) merged[o.key] = fromFlag;
    else if (fromEnv !== undefined && fromEnv !== "") merged[o.key] = fromEnv;
    else if (o.key === "baseUrl" && fromEnv !== undefined) errors.push(`${o.env} is set but empty: set it to the service's base URL, or unset it to run against the embedded fake`);
  }
  if (errors.length > 0) return { ok: false, errors };
  return validateConfig(merged as ConformanceInput);
}

/** The --help text. */
export function usage(): string {
  const lines = [
    "Usage: agent-conformance [options]",
    "       agent-conformance proxy --upstream URL [options]   judge live traffic between a client and a service",
    "       agent-conformance judge FILE.har [options]         judge recorded traffic (HAR)",
    "",
    "Runs the conformance suite of the Conversational Agent Service against --base-url,",
    "or against the embedded reference fake when no base URL is given.",
    "Every option can also come from its environment variable; a flag wins.",
    "`agent-conformance proxy --help` and `agent-conformance judge --help` list the options of the other two.",
    "",
    "Options:",
  ];
  for (const o of OPTIONS) {
    const name = `--${o.flag}${o.value ? ` ${o.value}` : ""}`;
    lines.push(`  ${name.padEnd(30)} ${o.help}${o.env ? ` [${o.env}]` : ""}`);
  }
  lines.push(
    "",
    "Exit codes: 0 every MUST passed; 1 a MUST failed (or a SHOULD under --strict);",
    "            2 usage or configuration error, a setup the preflight diagnosed (key refused,",
    "              base URL wrong, not this API, agent unknown), target unreachable, harness error,",
    "              or no test ran;",
    "            3 no MUST failed, but a MUST was skipped or inconclusive that you did not exclude.",
    "conformance.json's result follows the exit code: pass 0, fail 1, error 2, incomplete 3.",
  );
  return lines.join("\n");
}
