/**
 * The suite's configuration: flags > environment > defaults, validated with zod.
 * Every option has a flag (--max-creates) and an environment variable (CONFORMANCE_MAX_CREATES).
 * Keys are held here but never printed: see redact.ts.
 */

import { z } from "zod";
import { flagHelp, readFlags, UnknownFlagError, UsageError, type FlagTable } from "../../cli/flags.ts";
import { closestName } from "../../cli/closest-name.ts";
import { parseShard, SHARD_FORMAT, type Shard } from "./shards.ts";

const MiB = 1024 * 1024;

/**
 * Create caps per profile: full (the default) judges everything; smoke, per pull request, every
 * MUST family; deep judges everything too and gives the interaction property all the rest.
 */
export const PROFILE_MAX_CREATES = { full: 100, smoke: 25, deep: 400 } as const;
export const PROFILES = ["full", "smoke", "deep"] as const;
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
      ctx.addIssue({
        code: "custom",
        message: "is empty: give the service's base URL, or leave it out (unset) to run against the embedded fake",
      });
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
  name: z
    .string()
    .regex(
      /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/,
      'must be one header line "Name: value" whose name is a token, e.g. "X-Test-Fail: stream"',
    ),
  value: z
    .string()
    .trim()
    .min(1, 'must be one header line "Name: value" with a value')
    .regex(/^[^\r\n\0]*$/, "must be a single line"),
});

/** "Name: value" as flags and the environment give it, or the parsed { name, value } (programmatic use). */
const headerLine = z.union(
  [
    streamErrorHeaderSchema,
    z
      .string()
      .transform((line) => {
        const colon = line.indexOf(":");
        return colon === -1
          ? { name: "", value: "" }
          : { name: line.slice(0, colon).trim(), value: line.slice(colon + 1).trim() };
      })
      .pipe(streamErrorHeaderSchema),
  ],
  { error: 'must be one header line "Name: value", e.g. "X-Test-Fail: stream"' },
);

/** A requirement glob for --only: letters, digits, '-', and the wildcards * and ?. */
const onlyGlob = z
  .string()
  .trim()
  .regex(/^[A-Za-z0-9*?-]+$/, "must be a requirement ID or glob such as SSE-* or IDEM-1");

const onlyList = z
  .union([z.string(), z.array(z.string())])
  .transform((value) =>
    (Array.isArray(value) ? value : [value])
      .flatMap((v) => v.split(","))
      .map((v) => v.trim())
      .filter((v) => v !== ""),
  )
  .pipe(z.array(onlyGlob));

/** Headers the harness sets itself: --header must not replace them. */
const OWN_HEADERS = new Set([
  "authorization",
  "content-type",
  "content-length",
  "idempotency-key",
  "accept",
  "host",
  "transfer-encoding",
  "connection",
]);

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
  .transform(
    (lines) => Object.fromEntries(lines.map((line) => [line.name.toLowerCase(), line.value])) as Record<string, string>,
  );

/** --shard I/N as flags and the environment give it, or { index, count } (programmatic use). */
const shardSpec = z
  .union([z.object({ index: z.int(), count: z.int() }), z.string()], { error: SHARD_FORMAT })
  .transform((value, ctx): Shard => {
    const shard = parseShard(typeof value === "string" ? value : `${value.index}/${value.count}`);
    if (shard === undefined)
      ctx.addIssue({
        code: "custom",
        message: `${SHARD_FORMAT}, not ${JSON.stringify(typeof value === "string" ? value : `${value.index}/${value.count}`)}`,
      });
    return shard ?? { index: 1, count: 1 };
  });

/** Requests per second: a positive number (decimals allowed). */
const perSecond = z
  .union(
    [
      z.number(),
      z
        .string()
        .trim()
        .regex(/^\d+(\.\d+)?$/)
        .transform(Number),
    ],
    { error: "must be a positive number" },
  )
  .pipe(z.number().positive("must be a positive number").max(100_000, "must be at most 100000"));

/**
 * The suite's flags: one row per option, with its environment variable, its help line and its
 * schema. The configuration's schema is made of these rows' schemas.
 */
const SUITE_FLAGS = {
  baseUrl: {
    name: "base-url",
    env: "CONFORMANCE_BASE_URL",
    value: "URL",
    help: "target base URL (may carry a path prefix); without it the embedded fake is started",
    parser: baseUrl.optional(),
  },
  apiKey: {
    name: "api-key",
    env: "CONFORMANCE_API_KEY",
    value: "KEY",
    help: "API key of the primary identity (required with --base-url)",
    parser: nonEmpty.optional(),
  },
  agentId: {
    name: "agent-id",
    env: "CONFORMANCE_AGENT_ID",
    value: "ID",
    help: "agent the primary key may use (required with --base-url)",
    parser: nonEmpty.optional(),
  },
  otherAgentId: {
    name: "other-agent-id",
    env: "CONFORMANCE_OTHER_AGENT_ID",
    value: "ID",
    help: "a second agent reachable with the same key (scope checks)",
    parser: nonEmpty.optional(),
  },
  otherApiKey: {
    name: "other-api-key",
    env: "CONFORMANCE_OTHER_API_KEY",
    value: "KEY",
    help: "a key for the same agent whose scope excludes the primary key's conversations",
    parser: nonEmpty.optional(),
  },
  streamErrorHeader: {
    name: "stream-error-header",
    env: "CONFORMANCE_STREAM_ERROR_HEADER",
    value: '"NAME: VALUE"',
    help: "a header that makes the target end a stream with an error event, to judge SSE-6 (the embedded fake: X-Fake-Fault: error-after=1)",
    parser: headerLine.optional(),
  },
  profile: {
    name: "profile",
    env: "CONFORMANCE_PROFILE",
    value: "full|smoke|deep",
    help: `full (default: every check, at most ${PROFILE_MAX_CREATES.full} creates), smoke (per pull request: every MUST family, at most ${PROFILE_MAX_CREATES.smoke} creates) or deep (every check, and the interaction property gets what they leave of ${PROFILE_MAX_CREATES.deep} creates)`,
    parser: z.enum(PROFILES, { error: 'must be "full", "smoke" or "deep"' }).default(DEFAULTS.profile),
  },
  /** Undefined: the profile's cap (PROFILE_MAX_CREATES). */
  maxCreates: {
    name: "max-creates",
    env: "CONFORMANCE_MAX_CREATES",
    value: "N",
    help: `cap on creates the target accepts, plain and stream (default: the profile's, ${PROFILE_MAX_CREATES.full}, ${PROFILE_MAX_CREATES.smoke} or ${PROFILE_MAX_CREATES.deep})`,
    parser: wholeNumber(0, 100_000).optional(),
  },
  maxRetries: {
    name: "max-retries",
    env: "CONFORMANCE_MAX_RETRIES",
    value: "N",
    help: `retries of a 429, a 503 or a 409 with Retry-After, per request, honouring Retry-After (default ${DEFAULTS.maxRetries})`,
    parser: wholeNumber(0, 100).default(DEFAULTS.maxRetries),
  },
  maxRps: {
    name: "max-rps",
    env: "CONFORMANCE_MAX_RPS",
    value: "N",
    help: "requests per second across the whole run (default: no pacing)",
    parser: perSecond.optional(),
  },
  settleMs: {
    name: "settle-ms",
    env: "CONFORMANCE_SETTLE_MS",
    value: "MS",
    help: `how long a listing may take to show a finished exchange (default ${DEFAULTS.settleMs})`,
    parser: wholeNumber(0, 600_000).default(DEFAULTS.settleMs),
  },
  headers: {
    name: "header",
    env: "CONFORMANCE_HEADER",
    value: '"NAME: VALUE"',
    multiple: true,
    help: "a header sent on every request, e.g. a gateway key (repeatable; values are redacted in every output)",
    parser: extraHeaders.default({}),
  },
  concurrency: {
    name: "concurrency",
    env: "CONFORMANCE_CONCURRENCY",
    value: "N",
    help: `requests in flight at once (default ${DEFAULTS.concurrency})`,
    parser: wholeNumber(1, 64).default(DEFAULTS.concurrency),
  },
  requestTimeoutMs: {
    name: "request-timeout",
    env: "CONFORMANCE_REQUEST_TIMEOUT",
    value: "MS",
    help: `whole plain request, headers and body (default ${DEFAULTS.requestTimeoutMs})`,
    parser: wholeNumber(1, 600_000).default(DEFAULTS.requestTimeoutMs),
  },
  firstEventTimeoutMs: {
    name: "first-event-timeout",
    env: "CONFORMANCE_FIRST_EVENT_TIMEOUT",
    value: "MS",
    help: `stream: until the first event (default ${DEFAULTS.firstEventTimeoutMs})`,
    parser: wholeNumber(1, 600_000).default(DEFAULTS.firstEventTimeoutMs),
  },
  idleTimeoutMs: {
    name: "idle-timeout",
    env: "CONFORMANCE_IDLE_TIMEOUT",
    value: "MS",
    help: `stream: longest silence between reads (default ${DEFAULTS.idleTimeoutMs})`,
    parser: wholeNumber(1, 600_000).default(DEFAULTS.idleTimeoutMs),
  },
  streamTimeoutMs: {
    name: "stream-timeout",
    env: "CONFORMANCE_STREAM_TIMEOUT",
    value: "MS",
    help: `stream: whole stream (default ${DEFAULTS.streamTimeoutMs})`,
    parser: wholeNumber(1, 3_600_000).default(DEFAULTS.streamTimeoutMs),
  },
  checkTimeoutMs: {
    name: "check-timeout",
    env: "CONFORMANCE_CHECK_TIMEOUT",
    value: "MS",
    help: `one check, all its requests (default ${DEFAULTS.checkTimeoutMs})`,
    parser: wholeNumber(1, 3_600_000).default(DEFAULTS.checkTimeoutMs),
  },
  maxResponseBytes: {
    name: "max-response-bytes",
    env: "CONFORMANCE_MAX_RESPONSE_BYTES",
    value: "BYTES",
    help: `cap on a JSON response body (default ${DEFAULTS.maxResponseBytes})`,
    parser: wholeNumber(1024, 1024 * MiB).default(DEFAULTS.maxResponseBytes),
  },
  maxStreamBytes: {
    name: "max-stream-bytes",
    env: "CONFORMANCE_MAX_STREAM_BYTES",
    value: "BYTES",
    help: `cap on a stream body (default ${DEFAULTS.maxStreamBytes})`,
    parser: wholeNumber(1024, 1024 * MiB).default(DEFAULTS.maxStreamBytes),
  },
  seed: {
    name: "seed",
    env: "CONFORMANCE_SEED",
    value: "N",
    help: "fast-check seed (default: random, printed in the report)",
    parser: wholeNumber(0, 2 ** 31 - 1).optional(),
  },
  /** fast-check's path of a failing run (with --seed, runs exactly that run of the interaction property). */
  path: {
    name: "path",
    env: "CONFORMANCE_PATH",
    value: "PATH",
    help: "with --seed, run exactly the interaction property's run a counterexample names (--only interactions --seed S --path P)",
    parser: z
      .string()
      .trim()
      .regex(/^\d+(:\d+)*$/, "must be a fast-check path such as 3 or 3:1:0, as a counterexample prints it")
      .optional(),
  },
  runs: {
    name: "runs",
    env: "CONFORMANCE_RUNS",
    value: "N",
    help: `cap on fast-check runs per property (default ${DEFAULTS.runs})`,
    parser: wholeNumber(1, 10_000).default(DEFAULTS.runs),
  },
  shard: {
    name: "shard",
    env: "CONFORMANCE_SHARD",
    value: "I/N",
    help: "judge the I-th of N disjoint shares of the selected requirements (the interaction property runs in every shard, seeded --seed + I); `agent-conformance merge` makes one report of the N",
    parser: shardSpec.optional(),
  },
  only: {
    name: "only",
    env: "CONFORMANCE_ONLY",
    value: "GLOB",
    multiple: true,
    help: "run only requirements matching the glob (repeatable or comma list: SSE-*,IDEM-1), or the interaction property's checks (interactions); a requirement selected by ID runs its own checks, the property only where no other check judges it",
    parser: onlyList.default([]),
  },
  exclude: {
    name: "exclude",
    env: "CONFORMANCE_EXCLUDE",
    value: "GLOB",
    multiple: true,
    help: "leave out requirements matching the glob (repeatable or comma list); reported as skipped by choice",
    parser: onlyList.default([]),
  },
  rerunFailed: {
    name: "rerun-failed",
    env: "CONFORMANCE_RERUN_FAILED",
    value: "FILE",
    help: "run only what failed, warned or was inconclusive in that conformance.json, and the MUSTs it skipped that you had not excluded",
    parser: nonEmpty.optional(),
  },
  strict: {
    name: "strict",
    env: "CONFORMANCE_STRICT",
    help: "a failed SHOULD fails the run",
    parser: flag.default(false),
  },
  reportDir: {
    name: "report-dir",
    env: "CONFORMANCE_REPORT_DIR",
    value: "DIR",
    help: `where conformance.json, junit.xml and report.html go, also when the run stops with exit 2 (default ${DEFAULTS.reportDir})`,
    parser: nonEmpty.default(DEFAULTS.reportDir),
  },
  checksDir: {
    name: "checks-dir",
    env: "CONFORMANCE_CHECKS_DIR",
    value: "DIR",
    help: "directory of *.check.ts files to run instead of the suite's own checks (the default)",
    parser: nonEmpty.default(DEFAULTS.checksDir),
  },
  /** Known failures that do not fail the run (suite/runner/baseline.ts). */
  baseline: {
    name: "baseline",
    env: "CONFORMANCE_BASELINE",
    value: "FILE",
    help: "JSON file of known failures that do not fail the run (see docs/USING.md)",
    parser: nonEmpty.optional(),
  },
  /** Options passed to createFakeServer when no base URL is given (e.g. a mutant for the gate). */
  fakeOptions: {
    name: "fake-option",
    value: "NAME=VALUE",
    multiple: true,
    help: "option for the embedded fake (repeatable; VALUE is JSON or a string), e.g. --fake-option seed=7",
    parser: z.record(z.string(), z.unknown()).default({}),
  },
  dryRun: {
    name: "dry-run",
    env: "CONFORMANCE_DRY_RUN",
    help: "print what a run would do (the checks, the creates each may spend against the cap, the identities and settings; secrets redacted) and exit 0 without sending a request",
    parser: flag.default(false),
  },
  help: { name: "help", help: "print this help", parser: flag.default(false) },
} satisfies FlagTable;

type ShapeOf<F extends Record<string, { parser: z.ZodType }>> = { [K in keyof F]: F[K]["parser"] };

function shapeOf<F extends Record<string, { parser: z.ZodType }>>(table: F): ShapeOf<F> {
  return Object.fromEntries(Object.entries(table).map(([key, row]) => [key, row.parser])) as ShapeOf<F>;
}

const ConfigSchema = z.object(shapeOf(SUITE_FLAGS)).superRefine((config, ctx) => {
  if (config.baseUrl !== undefined) {
    if (config.apiKey === undefined) {
      ctx.addIssue({ code: "custom", path: ["apiKey"], message: "is required with --base-url" });
    }
    if (config.agentId === undefined) {
      ctx.addIssue({ code: "custom", path: ["agentId"], message: "is required with --base-url" });
    }
    if (Object.keys(config.fakeOptions).length > 0) {
      ctx.addIssue({
        code: "custom",
        path: ["fakeOptions"],
        message: "only applies to the embedded fake (no --base-url)",
      });
    }
  }
});

export type ConformanceConfig = z.output<typeof ConfigSchema>;
export type ConformanceInput = z.input<typeof ConfigSchema>;

export type ConfigResult =
  | { ok: true; config: ConformanceConfig }
  /** `unknownFlag`: the one line names the flag meant; the usage would add nothing. */
  | { ok: false; errors: string[]; unknownFlag?: true };

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
  const row = typeof key === "string" && Object.hasOwn(SUITE_FLAGS, key) ? (SUITE_FLAGS as FlagTable)[key] : undefined;
  if (row === undefined) return String(key ?? "configuration");
  return row.env === undefined ? `--${row.name}` : `--${row.name} (or ${row.env})`;
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
  const same = (a: unknown, b: unknown) =>
    typeof a === "string" && typeof b === "string" && a.trim() !== "" && a.trim() === b.trim();
  const errors: string[] = [];
  if (same(input.apiKey, input.otherApiKey)) {
    errors.push(
      "--api-key and --other-api-key (CONFORMANCE_API_KEY, CONFORMANCE_OTHER_API_KEY) are the same key: --other-api-key must be a key whose scope excludes the first key's conversations, e.g. another channel's",
    );
  }
  if (same(input.agentId, input.otherAgentId)) {
    errors.push(
      "--agent-id and --other-agent-id (CONFORMANCE_AGENT_ID, CONFORMANCE_OTHER_AGENT_ID) name the same agent: --other-agent-id must be a second agent the same key can use",
    );
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
    else if (arg === "--report-dir" && argv[i + 1] !== undefined && !argv[i + 1]?.startsWith("--"))
      fromFlag = argv[i + 1];
  });
  const chosen = fromFlag ?? env["CONFORMANCE_REPORT_DIR"];
  return chosen !== undefined && chosen.trim() !== "" ? chosen : DEFAULTS.reportDir;
}

/** The environment variables the suite reads: every CONFORMANCE_… name is one of these or a mistake. */
export const SUITE_VARIABLES: readonly string[] = Object.values(SUITE_FLAGS as FlagTable).flatMap((row) =>
  row.env === undefined ? [] : [row.env],
);

/** CONFORMANCE_… variables the suite does not read (CONFORMANCE_BASEURL), each named with the one it most likely meant. */
export function unknownVariableErrors(env: NodeJS.ProcessEnv): string[] {
  return Object.keys(env)
    .filter((name) => /^CONFORMANCE_/i.test(name) && !SUITE_VARIABLES.includes(name))
    .sort()
    .map((name) => {
      const meant = closestName(name, SUITE_VARIABLES);
      return `${name} is not a variable the suite reads${meant === undefined ? ` (--help lists each flag's variable)` : `: did you mean ${meant}?`}`;
    });
}

/** The identity rows: each belongs to a target named by a base URL. */
const IDENTITY_ROWS = ["apiKey", "agentId", "otherAgentId", "otherApiKey"] as const;

/**
 * Identities without a base URL: the embedded fake would run instead, knowing none of them, and
 * its refusals would be blamed on the key. Almost always a base URL that was mistyped or unset.
 */
function identitiesWithoutTarget(raw: Readonly<Record<string, unknown>>, argv: readonly string[]): string | undefined {
  if (raw["baseUrl"] !== undefined) return undefined;
  const given = IDENTITY_ROWS.filter((key) => raw[key] !== undefined).map((key) => {
    const row = SUITE_FLAGS[key];
    const asFlag = argv.some((arg) => arg === `--${row.name}` || arg.startsWith(`--${row.name}=`));
    return asFlag ? `--${row.name}` : row.env;
  });
  if (given.length === 0) return undefined;
  return `no base URL (--base-url or CONFORMANCE_BASE_URL), though ${given.join(", ")} ${given.length === 1 ? "is" : "are"} given: set the service's base URL (without one the suite runs against its embedded fake, which knows none of these identities)`;
}

/** Flags > environment > defaults. Unknown flags, unknown CONFORMANCE_… variables and stray arguments are errors. */
export function parseConfig(argv: readonly string[], env: NodeJS.ProcessEnv): ConfigResult {
  let raw;
  try {
    raw = readFlags(SUITE_FLAGS, argv, { env }).raw;
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    return error instanceof UnknownFlagError
      ? { ok: false, errors: [error.message], unknownFlag: true }
      : { ok: false, errors: [error.message] };
  }
  const errors: string[] = [];
  const baseUrlEnv = SUITE_FLAGS.baseUrl.env;
  if (raw.baseUrl === undefined && env[baseUrlEnv] === "") {
    errors.push(
      `${baseUrlEnv} is set but empty: set it to the service's base URL, or unset it to run against the embedded fake`,
    );
  } else {
    const noTarget = identitiesWithoutTarget(raw, argv);
    if (noTarget !== undefined) errors.push(noTarget);
  }
  errors.push(...unknownVariableErrors(env));
  const fake = parseFakeOptions(Array.isArray(raw.fakeOptions) ? raw.fakeOptions.map(String) : []);
  errors.push(...fake.errors);
  if (errors.length > 0) return { ok: false, errors };
  const given = Object.fromEntries(Object.entries(raw).filter(([, value]) => value !== undefined));
  return validateConfig({ ...given, fakeOptions: fake.options } as ConformanceInput);
}

/** The --help text. */
export function usage(): string {
  const lines = [
    "Usage: agent-conformance [options]",
    "       agent-conformance proxy --upstream URL [options]   judge live traffic between a client and a service",
    "       agent-conformance judge FILE.har [options]         judge recorded traffic (HAR)",
    "       agent-conformance merge DIR... [--report-dir DIR]  one report of the shards of a run (--shard)",
    "",
    "Runs the conformance suite of the Conversational Agent Service against --base-url,",
    "or against the embedded reference fake when no base URL is given.",
    "Every option can also come from its environment variable; a flag wins.",
    "`agent-conformance proxy --help`, `agent-conformance judge --help` and `agent-conformance merge --help` list the options of the others.",
    "",
    "Options:",
    flagHelp(SUITE_FLAGS, { helpAt: 33, longFlag: "same-line", showEnv: true }),
    "",
    "Exit codes: 0 every MUST passed; 1 a MUST failed (or a SHOULD under --strict);",
    "            2 usage or configuration error, a setup the preflight diagnosed (key refused,",
    "              base URL wrong, not this API, agent unknown), target unreachable, harness error,",
    "              or no test ran;",
    "            3 no MUST failed, but a MUST was skipped or inconclusive that you did not exclude;",
    "            130, 143 stopped by SIGINT (Ctrl-C) or SIGTERM: requests in flight end, what the run",
    "              created is deleted, the reports say why (again: stop at once).",
    "conformance.json's result follows the exit code: pass 0, fail 1, error 2, incomplete 3, 130 and 143.",
  ];
  return lines.join("\n");
}
