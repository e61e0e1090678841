/**
 * runConformance: one conformance run, callable in-process (the project's gate tests) or from
 * the command line (scripts/conformance.ts). In order: validate the configuration, pick the
 * target (or start the embedded fake), check that it answers, run the checks in vitest,
 * delete what the run created, write the reports, print the summary, and choose the exit code.
 */

import { randomBytes, randomInt } from "node:crypto";
import { existsSync, statSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { REQUIREMENTS } from "../../requirements/catalog.ts";
import { Semaphore } from "../http/concurrency.ts";
import { createClient, createPool } from "../http/client.ts";
import {
  DEFAULTS,
  PROFILE_MAX_CREATES,
  sameIdentityErrors,
  validateConfig,
  type ConformanceConfig,
  type ConformanceInput,
} from "./config.ts";
import { appendJournal, readJournal } from "../checks/runtime/journal.ts";
import { displayUrl, Redactor } from "../http/redact.ts";
import type { ConformanceReport } from "../report/report-types.ts";
import type { RunSettings } from "../checks/runtime/run-settings.ts";
import { globToRegExp, isSelected, SELECTABLE_FAMILIES } from "../checks/runtime/selection.ts";
import type { ServiceClient } from "../http/types.ts";
import { loadBaseline, type Baseline } from "./baseline.ts";
import { exitCodeOf, type BuiltReport, type ReportContext } from "./build-report.ts";
import { cleanupConversations, journalTotals, type CleanupControl } from "./cleanup.ts";
import { ConformanceReporter } from "./conformance-reporter.ts";
import { errorReport, writeErrorReports, type ErrorReportFacts } from "./error-report.ts";
import { addVerdictsToJunit } from "./junit-verdicts.ts";
import { summaryLines } from "./console-summary.ts";
import { EMBEDDED_STREAM_ERROR_HEADER, startEmbeddedFake, type EmbeddedFake } from "./embedded-fake.ts";
import { preflight } from "./preflight.ts";
import { noSuchRouteProbe } from "./route-probe.ts";
import { loadRerun } from "./rerun.ts";
import { stdoutSink, type ProgressSink } from "./progress.ts";
import { shardPlan, shardSeed, type ShardPlan } from "./shards.ts";
import { suiteVersion } from "./suite-version.ts";
import { runChecks } from "./vitest-run.ts";
import { dryRun } from "./dry-run.ts";
import { replayCommand, type Invocation } from "./replay-command.ts";
import type { Interruption, StopSignal } from "./interruption.ts";
import { interruptedLines } from "./interrupted-report.ts";
import { atOnceReason, mustStopNow, writeReportNow } from "./stopped-run.ts";
import { DEFAULT_IDENTITIES } from "../../fake-server/access/default-identities.ts";
// Imported with the run, never lazily: after Ctrl-C, the TypeScript loader's compiler (in the
// same process group) has had the signal too, and a module not compiled before fails to load.
import { writeHtmlReport } from "../report/html.ts";

export interface RunOptions {
  /** Where the runner's own lines go (default: stdout). */
  print?: (line: string) => void;
  /** Where errors go (default: stderr). */
  printError?: (line: string) => void;
  /**
   * Per-family progress while the checks run (default: on, to stdout, redrawn in place on a
   * terminal outside CI). A sink receives it instead; false turns it off.
   */
  progress?: boolean | ProgressSink;
  /** Base for relative paths such as --report-dir (default: the current directory). */
  cwd?: string;
  /**
   * How the run was started, for the replay line of a counterexample (the command, and which
   * secrets came from environment variables). Default: this process's environment, no flags.
   */
  invocation?: Invocation;
  /** SIGINT and SIGTERM (interruption.ts): the command line listens; a run in-process does not. */
  interruption?: Interruption;
}

export interface RunOutcome {
  exitCode: 0 | 1 | 2 | 3;
  /** The signal that stopped the run (result "incomplete"): the command line exits 130 or 143 (interruption.ts). */
  interrupted?: StopSignal;
  /** Undefined when the run stopped before the checks (configuration, unreachable target). */
  report: ConformanceReport | undefined;
}

const PROJECT_ROOT = resolve(import.meta.dirname, "../..");

/** Globs that select no requirement are a usage error: a typo must not silently shrink a gate. */
function unmatchedGlobs(only: readonly string[]): string[] {
  return only.filter(
    (glob) => ![...REQUIREMENTS.map((r) => r.id), ...SELECTABLE_FAMILIES].some((name) => globToRegExp(glob).test(name)),
  );
}

function progressSink(progress: boolean | ProgressSink, redactor: Redactor): ProgressSink | undefined {
  if (progress === false) return undefined;
  if (progress === true) return stdoutSink((text) => redactor.scrub(text));
  return { live: progress.live, write: (text) => progress.write(redactor.scrub(text)) };
}

/** The secrets of an input not validated yet, so that even a usage error never prints them. */
function secretsOf(input: ConformanceInput): string[] {
  const headers = input.headers;
  const headerValues =
    typeof headers === "object" && headers !== null && !Array.isArray(headers) ? Object.values(headers) : [];
  return [input.apiKey, input.otherApiKey, ...headerValues].filter(
    (v): v is string => typeof v === "string" && v.trim() !== "",
  );
}

/** What a report can say of the target before the configuration is valid. */
function targetOfInput(input: ConformanceInput): string {
  return typeof input.baseUrl === "string" && input.baseUrl.trim() !== ""
    ? displayUrl(input.baseUrl.trim())
    : "the embedded fake";
}

function newRunId(): string {
  return `${Date.now().toString(36)}${randomBytes(3).toString("hex")}`;
}

interface Resolved {
  settings: Omit<RunSettings, "journalPath">;
  describe: string;
  /** --shard: every shard's share of the selected requirements. */
  shard: ShardPlan | undefined;
}

function resolveTarget(
  config: ConformanceConfig,
  baseUrl: string,
  embedded: boolean,
  invocation: Invocation,
): Resolved {
  const apiKey = config.apiKey ?? (embedded ? DEFAULT_IDENTITIES.apiKey : undefined);
  const agentId = config.agentId ?? (embedded ? DEFAULT_IDENTITIES.agentId : undefined);
  const otherAgentId = config.otherAgentId ?? (embedded ? DEFAULT_IDENTITIES.otherAgentId : undefined);
  const otherApiKey = config.otherApiKey ?? (embedded ? DEFAULT_IDENTITIES.otherApiKey : undefined);
  if (apiKey === undefined || agentId === undefined) throw new Error("an API key and an agent id are required");
  const shard = config.shard === undefined ? undefined : shardPlan(config.shard, config.only, config.exclude);
  const seed = config.seed ?? randomInt(0, 2 ** 31 - 1);
  const settings: Resolved["settings"] = {
    baseUrl,
    primary: { apiKey, agentId },
    runId: newRunId(),
    // Each shard's property explores sequences of its own: the base seed plus the shard's number.
    seed: shardSeed(seed, config.shard),
    ...(config.path === undefined ? {} : { path: config.path }),
    replayCommand: replayCommand(config, seed, invocation),
    runs: config.runs,
    maxCreates: config.maxCreates ?? PROFILE_MAX_CREATES[config.profile],
    profile: config.profile,
    exclude: config.exclude,
    maxRetries: config.maxRetries,
    settleMs: config.settleMs,
    headers: config.headers,
    concurrency: config.concurrency,
    requestTimeoutMs: config.requestTimeoutMs,
    firstEventTimeoutMs: config.firstEventTimeoutMs,
    idleTimeoutMs: config.idleTimeoutMs,
    streamTimeoutMs: config.streamTimeoutMs,
    checkTimeoutMs: config.checkTimeoutMs,
    maxResponseBytes: config.maxResponseBytes,
    maxStreamBytes: config.maxStreamBytes,
    only: config.only,
  };
  if (config.maxRps !== undefined) settings.maxRps = config.maxRps;
  if (shard !== undefined)
    settings.shard = {
      index: shard.index,
      count: shard.count,
      requirements: [...(shard.shares[shard.index - 1] ?? [])],
    };
  if (otherAgentId !== undefined) settings.otherAgent = { apiKey, agentId: otherAgentId };
  if (otherApiKey !== undefined) settings.otherKey = { apiKey: otherApiKey, agentId };
  // The embedded fake's fault header provokes an error event, unless its faults are switched off.
  const faultsOn = embedded && config.fakeOptions["faults"] !== false;
  const streamErrorHeader = config.streamErrorHeader ?? (faultsOn ? { ...EMBEDDED_STREAM_ERROR_HEADER } : undefined);
  if (streamErrorHeader !== undefined) settings.streamErrorHeader = streamErrorHeader;
  const describe = `${displayUrl(baseUrl)}${embedded ? " (embedded fake)" : ""} (agent ${agentId})`;
  return { settings, describe, shard };
}

export async function runConformance(input: ConformanceInput, options: RunOptions = {}): Promise<RunOutcome> {
  const print = options.print ?? ((line: string) => process.stdout.write(`${line}\n`));
  const printError = options.printError ?? ((line: string) => process.stderr.write(`${line}\n`));
  const cwd = options.cwd ?? process.cwd();
  const exit = new EarlyExit(input, cwd, printError);
  const stop = options.interruption;

  const prepared = await prepareRun(input, cwd, exit, print);
  if (!prepared.ok) return prepared.outcome;
  const { config } = prepared;
  if (stop?.signal !== undefined) return await exit.stopped(stop.signal);
  // What the run would do, before a fake starts or anything is sent (dry-run.ts).
  if (config.dryRun) {
    const embedded = config.baseUrl === undefined;
    const { settings, describe } = resolveTarget(
      config,
      config.baseUrl ?? "http://127.0.0.1",
      embedded,
      options.invocation ?? { env: process.env, argv: [] },
    );
    const redactor = exit.knowTarget(settings, describe);
    return {
      exitCode: await dryRun({
        config,
        settings,
        embedded,
        root: PROJECT_ROOT,
        checksDir: prepared.checksDir,
        redactor,
        reportDir: exit.reportDir,
        print,
        printError,
      }),
      report: undefined,
    };
  }

  const open: OpenResources = {};
  try {
    if (config.baseUrl === undefined) {
      try {
        open.fake = await startEmbeddedFake(config.fakeOptions);
      } catch (error) {
        return await exit.usage([`could not start the embedded fake: ${messageOf(error)}`]);
      }
    }
    const invocation = options.invocation ?? { env: process.env, argv: [] };
    const { settings, describe, shard } = resolveTarget(
      config,
      config.baseUrl ?? open.fake?.url ?? "",
      open.fake !== undefined,
      invocation,
    );
    const redactor = exit.knowTarget(settings, describe);
    open.pool = createPool(settings.baseUrl, settings.concurrency, settings.requestTimeoutMs);
    const client = runnerClient(settings, open.pool, redactor);

    const checked = await preflight(
      preflightOf(config, open.fake !== undefined, settings, describe, client, open.pool),
    );
    // Preflight deletes what it creates: a stop during it leaves nothing behind.
    if (stop?.signal !== undefined) return await exit.stopped(stop.signal);
    if (!checked.ok) return await exit.usage([checked.reason]);

    open.journalDir = await mkdtemp(join(tmpdir(), "agent-conformance-"));
    const journalPath = startJournal(open.journalDir, checked.created);
    const stopPath = join(open.journalDir, "stop");
    stop?.tellWorker(stopPath);
    const run: PreparedChecks = {
      ...prepared,
      settings: { ...settings, maxCreates: settings.maxCreates - checked.created.length, journalPath, stopPath },
      createBudget: settings.maxCreates,
      describe,
      shard,
      client,
      redactor,
      reportDir: exit.reportDir,
      stop,
    };
    const checkedRun = await runChecksAndReport(run, progressSink(options.progress ?? true, redactor), exit);
    if ("stopped" in checkedRun) return checkedRun.stopped;
    const { built, atOnce } = checkedRun;
    await writeOtherReports(built.report, exit.reportDir, (line) => printError(redactor.scrub(line)), !atOnce);
    for (const line of summaryLines(built.report, exit.reportDir)) print(redactor.scrub(line));
    for (const line of interruptedLines(built.report)) print(redactor.scrub(line));
    // A shard whose share is empty may execute nothing: its result says whether that is an error.
    if (built.executed === 0 && built.report.result === "error")
      printError("agent-conformance: no check was executed (all skipped or none selected)");
    const signal = built.report.interrupted?.signal;
    return {
      exitCode: exitCodeOf(built),
      report: built.report,
      ...(signal === undefined ? {} : { interrupted: signal }),
    };
  } finally {
    // Stopped at once: what is still open (the worker's connections to the embedded fake) is not waited for.
    const closing = closeConnections(open);
    await (stop?.atOnce === true
      ? Promise.race([closing, new Promise((resolve) => setTimeout(resolve, 1_000).unref())])
      : closing);
    // Even then the journal goes: a run stopped at once leaves nothing in the temporary folder.
    if (open.journalDir !== undefined) await rm(open.journalDir, { recursive: true, force: true });
  }
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * Exit 2 before any verdict: the lines on stderr, and reports with result "error". What it
 * knows of the run (report folder, secrets to redact, target) grows as the run gets further,
 * so that even a usage error leaves its reports and never prints a key.
 */
class EarlyExit {
  redactor: Redactor;
  reportDir: string;
  #facts: Omit<ErrorReportFacts, "diagnosis">;
  readonly #printError: (line: string) => void;

  constructor(input: ConformanceInput, cwd: string, printError: (line: string) => void) {
    this.#printError = printError;
    this.redactor = new Redactor(secretsOf(input));
    this.reportDir = resolve(
      cwd,
      typeof input.reportDir === "string" && input.reportDir.trim() !== "" ? input.reportDir : DEFAULTS.reportDir,
    );
    this.#facts = { target: targetOfInput(input) };
  }

  knowConfig(config: ConformanceConfig, cwd: string): void {
    this.redactor = new Redactor([config.apiKey, config.otherApiKey, ...Object.values(config.headers)]);
    this.#facts = { ...this.#facts, strict: config.strict, shard: config.shard };
    this.reportDir = resolve(cwd, config.reportDir);
  }

  /** The run's redactor, from the identities actually used (the embedded fake's included). */
  knowTarget(settings: Resolved["settings"], describe: string): Redactor {
    this.redactor = new Redactor([
      settings.primary.apiKey,
      settings.otherKey?.apiKey,
      ...Object.values(settings.headers),
    ]);
    this.#facts = {
      ...this.#facts,
      target: describe,
      runId: settings.runId,
      seed: settings.seed,
      creates: { budget: settings.maxCreates, spent: 0 },
    };
    return this.redactor;
  }

  /** A signal before the first check: the reports say the run was interrupted, and nothing was judged. */
  async stopped(signal: StopSignal): Promise<RunOutcome> {
    const reason = `interrupted by ${signal} before the first check`;
    this.#printError(`agent-conformance: ${reason}`);
    const interrupted = { signal, reason, checks: { done: 0, total: 0 }, atOnce: false };
    const unwritten = await writeErrorReports(
      this.reportDir,
      errorReport({ ...this.#facts, diagnosis: [reason], result: "incomplete", interrupted }),
    );
    if (unwritten !== undefined)
      this.#printError(
        this.redactor.scrub(`agent-conformance: the reports were not written to ${this.reportDir}: ${unwritten}`),
      );
    return { exitCode: 3, report: undefined, interrupted: signal };
  }

  /** Nothing to do (--rerun-failed found nothing): exit 0, and reports that say so. */
  async nothingToRun(line: string): Promise<RunOutcome> {
    const unwritten = await writeErrorReports(
      this.reportDir,
      errorReport({ ...this.#facts, diagnosis: [line], result: "pass" }),
    );
    if (unwritten !== undefined)
      this.#printError(
        this.redactor.scrub(`agent-conformance: the reports were not written to ${this.reportDir}: ${unwritten}`),
      );
    return { exitCode: 0, report: undefined };
  }

  async usage(lines: string[], hint = false): Promise<RunOutcome> {
    const diagnosis = lines.map((line) => this.redactor.scrub(line));
    for (const line of diagnosis) this.#printError(`agent-conformance: ${line}`);
    if (hint) this.#printError("agent-conformance: run with --help for usage");
    const unwritten = await writeErrorReports(this.reportDir, errorReport({ ...this.#facts, diagnosis }));
    if (unwritten !== undefined)
      this.#printError(
        this.redactor.scrub(`agent-conformance: the reports were not written to ${this.reportDir}: ${unwritten}`),
      );
    return { exitCode: 2, report: undefined };
  }
}

type Prepared =
  | { ok: true; config: ConformanceConfig; checksDir: string; baseline: Baseline | undefined }
  | { ok: false; outcome: RunOutcome };

/** Everything that can be refused before the target is touched: configuration, selection, files. */
async function prepareRun(
  input: ConformanceInput,
  cwd: string,
  exit: EarlyExit,
  print: (line: string) => void,
): Promise<Prepared> {
  const stop = async (lines: string[], hint = false): Promise<Prepared> => ({
    ok: false,
    outcome: await exit.usage(lines, hint),
  });
  const sameIdentities = sameIdentityErrors(input);
  if (sameIdentities.length > 0) return stop(sameIdentities);
  const validated = validateConfig(input);
  if (!validated.ok) return stop(validated.errors, true);
  const config = validated.config;
  exit.knowConfig(config, cwd);

  const unmatched = unmatchedGlobs(config.only);
  if (unmatched.length > 0) return stop(unmatched.map((glob) => `--only ${glob} selects no requirement`));

  if (config.rerunFailed !== undefined) {
    const rerun = await rerunSelection(config, config.rerunFailed, cwd);
    if ("error" in rerun) return stop([rerun.error]);
    if ("nothing" in rerun) {
      print(`agent-conformance: nothing to rerun: ${rerun.nothing}`);
      return { ok: false, outcome: await exit.nothingToRun(`nothing to rerun: ${rerun.nothing}`) };
    }
    // From here on the selection is what to rerun: the report calls the rest not selected.
    config.only = rerun.ids;
  }

  // The default checks are the ones beside this module (suite/checks, or dist/suite/checks in
  // the installed package), wherever the run is started from.
  const checksDir =
    config.checksDir === DEFAULTS.checksDir ? join(PROJECT_ROOT, DEFAULTS.checksDir) : resolve(cwd, config.checksDir);
  if (!existsSync(checksDir) || !statSync(checksDir).isDirectory()) {
    return stop([`--checks-dir ${config.checksDir}: no such directory`]);
  }

  let baseline: Baseline | undefined;
  if (config.baseline !== undefined) {
    const loaded = await loadBaseline(config.baseline, resolve(cwd, config.baseline));
    if (!loaded.ok) return stop(loaded.errors);
    baseline = loaded.baseline;
  }
  return { ok: true, config, checksDir, baseline };
}

/** The requirements --rerun-failed asks for, within --only; or why there is nothing to rerun. */
async function rerunSelection(
  config: ConformanceConfig,
  file: string,
  cwd: string,
): Promise<{ ids: string[] } | { nothing: string } | { error: string }> {
  const rerun = await loadRerun(file, resolve(cwd, file));
  if (!rerun.ok) return { error: rerun.error };
  const ids = rerun.ids.filter((id) => isSelected(id, config.only));
  if (ids.length > 0) return { ids };
  return {
    nothing:
      rerun.ids.length === 0
        ? `no requirement failed, warned or was inconclusive, and no MUST was left unjudged, in ${file}`
        : `--only selects none of ${rerun.ids.join(", ")}`,
  };
}

/** What the run opened and must close, however it ends. */
interface OpenResources {
  fake?: EmbeddedFake;
  pool?: ReturnType<typeof createPool>;
  journalDir?: string;
}

async function closeConnections(open: OpenResources): Promise<void> {
  await open.pool?.close().catch(() => {});
  await open.fake?.close().catch(() => {});
}

/** The runner's own client (preflight and cleanup), on the run's connection pool. */
function runnerClient(
  settings: Resolved["settings"],
  pool: ReturnType<typeof createPool>,
  redactor: Redactor,
): ServiceClient {
  return createClient({
    baseUrl: settings.baseUrl,
    primary: settings.primary,
    limits: settings,
    dispatcher: pool,
    semaphore: new Semaphore(settings.concurrency),
    redactor,
    maxRetries: settings.maxRetries,
    extraHeaders: settings.headers,
    // Preflight names the keys of its creates; any other would still be run-scoped.
    idempotencyKey: () => `conf-${settings.runId}-runner-${randomBytes(4).toString("hex")}`,
  });
}

function preflightOf(
  config: ConformanceConfig,
  embedded: boolean,
  settings: Resolved["settings"],
  describe: string,
  client: ServiceClient,
  pool: ReturnType<typeof createPool>,
): Parameters<typeof preflight>[0] {
  // The embedded fake serves the identities it was started with: no create is spent to learn that.
  const ownFake =
    embedded && [config.apiKey, config.agentId, config.otherAgentId, config.otherApiKey].every((v) => v === undefined);
  return {
    client,
    describe,
    baseUrl: settings.baseUrl,
    runId: settings.runId,
    primary: settings.primary,
    otherAgent: settings.otherAgent,
    otherKey: settings.otherKey,
    creates: ownFake ? 0 : settings.maxCreates,
    askNoSuchRoute: noSuchRouteProbe({
      baseUrl: settings.baseUrl,
      dispatcher: pool,
      headers: settings.headers,
      requestTimeoutMs: settings.requestTimeoutMs,
      maxResponseBytes: settings.maxResponseBytes,
    }),
  };
}

/** The journal, opened with preflight's creates: spent from the budget, and cleaned up at the end unless already deleted. */
function startJournal(
  dir: string,
  created: Extract<Awaited<ReturnType<typeof preflight>>, { ok: true }>["created"],
): string {
  const journalPath = join(dir, "journal.jsonl");
  for (const made of created) {
    appendJournal(journalPath, { type: "create", check: "preflight" });
    if (!made.deleted && made.conversationId !== undefined) {
      appendJournal(journalPath, {
        type: "track",
        conversationId: made.conversationId,
        owner: { agentId: made.agentId, key: "primary" },
        check: "preflight",
      });
    }
  }
  return journalPath;
}

interface PreparedChecks {
  config: ConformanceConfig;
  checksDir: string;
  baseline: Baseline | undefined;
  /** What the checks' worker is given: the budget left after preflight, and the journal. */
  settings: RunSettings;
  /** The whole budget, preflight's creates included. */
  createBudget: number;
  describe: string;
  shard: ShardPlan | undefined;
  client: ServiceClient;
  redactor: Redactor;
  reportDir: string;
  /** The signals the run listens to, if any. */
  stop: Interruption | undefined;
}

/** Runs the checks in vitest; the reporter builds conformance.json once cleanup has run. */
async function runChecksAndReport(
  run: PreparedChecks,
  progress: ProgressSink | undefined,
  exit: EarlyExit,
): Promise<{ built: BuiltReport; atOnce: boolean } | { stopped: RunOutcome }> {
  const startedAt = new Date();
  const started = performance.now();
  const { stop } = run;
  let checksOver = false;
  const deleted = new Set<string>();
  const deleteSent = new Set<string>();
  const contextNow = () => ({
    target: run.describe,
    strict: run.config.strict,
    only: run.config.only,
    exclude: run.config.exclude,
    runId: run.settings.runId,
    seed: run.settings.seed,
    startedAt: startedAt.toISOString(),
    durationMs: performance.now() - started,
    redactor: run.redactor,
    shard: run.shard,
    suite: suiteVersion(),
  });
  const finish = async (): Promise<ReportContext> => {
    checksOver = true;
    const { creates, cleanup, harnessErrors } = await cleanUp(run, {
      stopped: () => atOnceReason(stop),
      deleted: (id) => deleted.add(id),
      sending: (id) => deleteSent.add(id),
    });
    return { ...contextNow(), creates, cleanup, harnessErrors };
  };
  const reporter = new ConformanceReporter({
    reportPath: join(run.reportDir, "conformance.json"),
    finish,
    baseline: run.baseline,
    interrupted: () => (stop?.signal === undefined ? undefined : { signal: stop.signal, atOnce: stop.atOnce }),
  });
  const checks = runChecks({
    root: PROJECT_ROOT,
    checksDir: run.checksDir,
    reportDir: run.reportDir,
    settings: run.settings,
    reporter,
    progress,
    redactor: run.redactor,
    ownSignals: stop !== undefined,
  }).then(() => "ended" as const);
  try {
    // A run that must stop now is reported from what the reporter has seen, without waiting for vitest.
    const now = stop === undefined ? undefined : mustStopNow(stop, () => checksOver).then(() => "now" as const);
    const ended = await Promise.race(now === undefined ? [checks] : [checks, now]);
    if (ended === "now" && stop?.signal !== undefined && reporter.built === undefined) {
      const built = await writeReportNow({
        reporter,
        context: contextNow(),
        journalPath: run.settings.journalPath,
        createBudget: run.createBudget,
        deleted,
        deleteSent,
        signal: stop.signal,
        reportDir: run.reportDir,
      });
      return { built, atOnce: true };
    }
  } catch (error) {
    return { stopped: await exit.usage([`the test runner failed: ${messageOf(error)}`]) };
  }
  if (reporter.built === undefined) {
    return {
      stopped: await exit.usage([
        `no report was produced: ${reporter.failure ?? "the test runner did not finish the run"}`,
      ]),
    };
  }
  return { built: reporter.built, atOnce: false };
}

/** After the last check: what the run spent, and every conversation it created deleted as its owner. */
async function cleanUp(
  run: PreparedChecks,
  control: CleanupControl,
): Promise<Pick<ReportContext, "creates" | "cleanup" | "harnessErrors">> {
  const journal = readJournal(run.settings.journalPath);
  const totals = journalTotals(journal.entries);
  const swept = await cleanupConversations(
    totals.tracked,
    run.client,
    {
      primary: run.settings.primary.apiKey,
      other: run.settings.otherKey?.apiKey ?? undefined,
    },
    run.settings.concurrency,
    control,
  );
  return {
    creates: { budget: run.createBudget, spent: totals.creates },
    cleanup: { ...swept, deleted: swept.deleted + totals.deletedByChecks },
    harnessErrors: journal.malformed > 0 ? [`${journal.malformed} journal line(s) could not be read`] : [],
  };
}

/**
 * junit.xml's verdicts (vitest's file, unless the run was reported without waiting for vitest)
 * and report.html: a failure of either is said, and does not change the verdict.
 */
async function writeOtherReports(
  report: ConformanceReport,
  reportDir: string,
  printError: (line: string) => void,
  vitestJunit = true,
): Promise<void> {
  try {
    if (vitestJunit) await addVerdictsToJunit(join(reportDir, "junit.xml"), report);
  } catch (error) {
    printError(`agent-conformance: junit.xml was not completed: ${messageOf(error)}`);
  }
  try {
    await writeHtmlReport(report, reportDir);
  } catch (error) {
    printError(`agent-conformance: report.html was not written: ${messageOf(error)}`);
  }
}
