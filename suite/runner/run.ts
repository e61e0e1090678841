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
import { DEFAULTS, FAKE_IDENTITIES, PROFILE_MAX_CREATES, sameIdentityErrors, validateConfig, type ConformanceConfig, type ConformanceInput } from "./config.ts";
import { appendJournal, readJournal } from "../checks/runtime/journal.ts";
import { displayUrl, Redactor } from "../http/redact.ts";
import type { ConformanceReport } from "../report/report-types.ts";
import type { RunSettings } from "../checks/runtime/run-settings.ts";
import { globToRegExp, isSelected, SELECTABLE_FAMILIES } from "../checks/runtime/selection.ts";
import type { ServiceClient } from "../http/types.ts";
import { loadBaseline, type Baseline } from "./baseline.ts";
import { exitCodeOf, type ReportContext } from "./build-report.ts";
import { cleanupConversations, journalTotals } from "./cleanup.ts";
import { ConformanceReporter } from "./conformance-reporter.ts";
import { errorReport, writeErrorReports, type ErrorReportFacts } from "./error-report.ts";
import { addVerdictsToJunit } from "./junit-verdicts.ts";
import { summaryLines } from "./console-summary.ts";
import { EMBEDDED_STREAM_ERROR_HEADER, startEmbeddedFake, type EmbeddedFake } from "./embedded-fake.ts";
import { preflight } from "./preflight.ts";
import { noSuchRouteProbe } from "./route-probe.ts";
import { loadRerun } from "./rerun.ts";
import { stdoutSink, type ProgressSink } from "./progress.ts";
import { runChecks } from "./vitest-run.ts";

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
}

export interface RunOutcome {
  exitCode: 0 | 1 | 2 | 3;
  /** Undefined when the run stopped before the checks (configuration, unreachable target). */
  report: ConformanceReport | undefined;
}

const PROJECT_ROOT = resolve(import.meta.dirname, "../..");

/** Globs that select no requirement are a usage error: a typo must not silently shrink a gate. */
function unmatchedGlobs(only: readonly string[]): string[] {
  return only.filter((glob) => ![...REQUIREMENTS.map((r) => r.id), ...SELECTABLE_FAMILIES].some((name) => globToRegExp(glob).test(name)));
}

function progressSink(progress: boolean | ProgressSink, redactor: Redactor): ProgressSink | undefined {
  if (progress === false) return undefined;
  if (progress === true) return stdoutSink((text) => redactor.scrub(text));
  return { live: progress.live, write: (text) => progress.write(redactor.scrub(text)) };
}

/** The secrets of an input not validated yet, so that even a usage error never prints them. */
function secretsOf(input: ConformanceInput): string[] {
  const headers = input.headers;
  const headerValues = typeof headers === "object" && headers !== null && !Array.isArray(headers) ? Object.values(headers) : [];
  return [input.apiKey, input.otherApiKey, ...headerValues].filter((v): v is string => typeof v === "string" && v.trim() !== "");
}

/** What a report can say of the target before the configuration is valid. */
function targetOfInput(input: ConformanceInput): string {
  return typeof input.baseUrl === "string" && input.baseUrl.trim() !== "" ? displayUrl(input.baseUrl.trim()) : "the embedded fake";
}

function newRunId(): string {
  return `${Date.now().toString(36)}${randomBytes(3).toString("hex")}`;
}

interface Resolved {
  settings: Omit<RunSettings, "journalPath">;
  describe: string;
}

function resolveTarget(config: ConformanceConfig, baseUrl: string, embedded: boolean): Resolved {
  const apiKey = config.apiKey ?? (embedded ? FAKE_IDENTITIES.apiKey : undefined);
  const agentId = config.agentId ?? (embedded ? FAKE_IDENTITIES.agentId : undefined);
  const otherAgentId = config.otherAgentId ?? (embedded ? FAKE_IDENTITIES.otherAgentId : undefined);
  const otherApiKey = config.otherApiKey ?? (embedded ? FAKE_IDENTITIES.otherApiKey : undefined);
  if (apiKey === undefined || agentId === undefined) throw new Error("an API key and an agent id are required");
  const settings: Resolved["settings"] = {
    baseUrl,
    primary: { apiKey, agentId },
    runId: newRunId(),
    seed: config.seed ?? randomInt(0, 2 ** 31 - 1),
    ...(config.path === undefined ? {} : { path: config.path }),
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
  if (otherAgentId !== undefined) settings.otherAgent = { apiKey, agentId: otherAgentId };
  if (otherApiKey !== undefined) settings.otherKey = { apiKey: otherApiKey, agentId };
  // The embedded fake's fault header provokes an error event, unless its faults are switched off.
  const faultsOn = embedded && config.fakeOptions["faults"] !== false;
  const streamErrorHeader = config.streamErrorHeader ?? (faultsOn ? { ...EMBEDDED_STREAM_ERROR_HEADER } : undefined);
  if (streamErrorHeader !== undefined) settings.streamErrorHeader = streamErrorHeader;
  const describe = `${displayUrl(baseUrl)}${embedded ? " (embedded fake)" : ""} (agent ${agentId})`;
  return { settings, describe };
}

export async function runConformance(input: ConformanceInput, options: RunOptions = {}): Promise<RunOutcome> {
  const print = options.print ?? ((line: string) => process.stdout.write(`${line}\n`));
  const printError = options.printError ?? ((line: string) => process.stderr.write(`${line}\n`));
  const cwd = options.cwd ?? process.cwd();
  let redactor = new Redactor(secretsOf(input));
  // Known before the configuration is valid, so that even a usage error leaves its reports.
  let reportDir = resolve(cwd, typeof input.reportDir === "string" && input.reportDir.trim() !== "" ? input.reportDir : DEFAULTS.reportDir);
  let errorFacts: Omit<ErrorReportFacts, "diagnosis"> = { target: targetOfInput(input) };
  /** Exit 2 before any verdict: the lines on stderr, and reports with result "error". */
  const usageError = async (lines: string[], hint = false): Promise<RunOutcome> => {
    const diagnosis = lines.map((line) => redactor.scrub(line));
    for (const line of diagnosis) printError(`agent-conformance: ${line}`);
    if (hint) printError("agent-conformance: run with --help for usage");
    const unwritten = await writeErrorReports(reportDir, errorReport({ ...errorFacts, diagnosis }));
    if (unwritten !== undefined) printError(redactor.scrub(`agent-conformance: the reports were not written to ${reportDir}: ${unwritten}`));
    return { exitCode: 2, report: undefined };
  };

  const sameIdentities = sameIdentityErrors(input);
  if (sameIdentities.length > 0) return usageError(sameIdentities);
  const validated = validateConfig(input);
  if (!validated.ok) return usageError(validated.errors, true);
  const config = validated.config;
  redactor = new Redactor([config.apiKey, config.otherApiKey, ...Object.values(config.headers)]);
  errorFacts = { ...errorFacts, strict: config.strict };
  reportDir = resolve(cwd, config.reportDir);

  const unmatched = unmatchedGlobs(config.only);
  if (unmatched.length > 0) return usageError(unmatched.map((glob) => `--only ${glob} selects no requirement`));

  if (config.rerunFailed !== undefined) {
    const rerun = await loadRerun(config.rerunFailed, resolve(cwd, config.rerunFailed));
    if (!rerun.ok) return usageError([rerun.error]);
    const ids = rerun.ids.filter((id) => isSelected(id, config.only));
    if (ids.length === 0) {
      const why = rerun.ids.length === 0
        ? `no requirement failed, warned or was inconclusive, and no MUST was left unjudged, in ${config.rerunFailed}`
        : `--only selects none of ${rerun.ids.join(", ")}`;
      print(`agent-conformance: nothing to rerun: ${why}`);
      return { exitCode: 0, report: undefined };
    }
    // From here on the selection is what to rerun: the report calls the rest not selected.
    config.only = ids;
  }

  // The default checks are the ones beside this module (suite/checks, or dist/suite/checks in
  // the installed package), wherever the run is started from.
  const checksDir = config.checksDir === DEFAULTS.checksDir ? join(PROJECT_ROOT, DEFAULTS.checksDir) : resolve(cwd, config.checksDir);
  if (!existsSync(checksDir) || !statSync(checksDir).isDirectory()) {
    return usageError([`--checks-dir ${config.checksDir}: no such directory`]);
  }

  let baseline: Baseline | undefined;
  if (config.baseline !== undefined) {
    const loaded = await loadBaseline(config.baseline, resolve(cwd, config.baseline));
    if (!loaded.ok) return usageError(loaded.errors);
    baseline = loaded.baseline;
  }

  let fake: EmbeddedFake | undefined;
  let pool: ReturnType<typeof createPool> | undefined;
  let journalDir: string | undefined;
  try {
    if (config.baseUrl === undefined) {
      try {
        fake = await startEmbeddedFake(config.fakeOptions);
      } catch (error) {
        return await usageError([`could not start the embedded fake: ${error instanceof Error ? error.message : String(error)}`]);
      }
    }
    const { settings, describe } = resolveTarget(config, config.baseUrl ?? fake?.url ?? "", fake !== undefined);
    const runRedactor = new Redactor([settings.primary.apiKey, settings.otherKey?.apiKey, ...Object.values(settings.headers)]);
    redactor = runRedactor;
    errorFacts = { ...errorFacts, target: describe, runId: settings.runId, seed: settings.seed, creates: { budget: settings.maxCreates, spent: 0 } };

    pool = createPool(settings.baseUrl, settings.concurrency, settings.requestTimeoutMs);
    const client: ServiceClient = createClient({
      baseUrl: settings.baseUrl,
      primary: settings.primary,
      limits: settings,
      dispatcher: pool,
      semaphore: new Semaphore(settings.concurrency),
      redactor: runRedactor,
      maxRetries: settings.maxRetries,
      extraHeaders: settings.headers,
      // Preflight names the keys of its creates; any other would still be run-scoped.
      idempotencyKey: () => `conf-${settings.runId}-runner-${randomBytes(4).toString("hex")}`,
    });

    // The embedded fake serves the identities it was started with: no create is spent to learn that.
    const ownFake = fake !== undefined && [config.apiKey, config.agentId, config.otherAgentId, config.otherApiKey].every((v) => v === undefined);
    const checked = await preflight({
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
    });
    if (!checked.ok) return await usageError([checked.reason]);

    journalDir = await mkdtemp(join(tmpdir(), "agent-conformance-"));
    const journalPath = join(journalDir, "journal.jsonl");
    // Preflight's creates are the run's: spent from its budget, and cleaned up at the end unless already deleted.
    for (const made of checked.created) {
      appendJournal(journalPath, { type: "create", check: "preflight" });
      if (!made.deleted && made.conversationId !== undefined) {
        appendJournal(journalPath, { type: "track", conversationId: made.conversationId, owner: { agentId: made.agentId, key: "primary" }, check: "preflight" });
      }
    }
    const startedAt = new Date();
    const started = performance.now();

    const finish = async (): Promise<ReportContext> => {
      const journal = readJournal(journalPath);
      const totals = journalTotals(journal.entries);
      const swept = await cleanupConversations(totals.tracked, client, {
        primary: settings.primary.apiKey,
        other: settings.otherKey?.apiKey ?? undefined,
      }, settings.concurrency);
      const cleanup = { ...swept, deleted: swept.deleted + totals.deletedByChecks };
      return {
        target: describe,
        strict: config.strict,
        only: config.only,
        exclude: config.exclude,
        runId: settings.runId,
        seed: settings.seed,
        startedAt: startedAt.toISOString(),
        durationMs: performance.now() - started,
        creates: { budget: settings.maxCreates, spent: totals.creates },
        cleanup,
        harnessErrors: journal.malformed > 0 ? [`${journal.malformed} journal line(s) could not be read`] : [],
        redactor: runRedactor,
      };
    };

    const reporter = new ConformanceReporter({ reportPath: join(reportDir, "conformance.json"), finish, baseline });
    try {
      await runChecks({
        root: PROJECT_ROOT,
        checksDir,
        reportDir,
        settings: { ...settings, maxCreates: settings.maxCreates - checked.created.length, journalPath },
        reporter,
        progress: progressSink(options.progress ?? true, runRedactor),
        redactor: runRedactor,
      });
    } catch (error) {
      return await usageError([`the test runner failed: ${error instanceof Error ? error.message : String(error)}`]);
    }

    const built = reporter.built;
    if (built === undefined) {
      return await usageError([`no report was produced: ${reporter.failure ?? "the test runner did not finish the run"}`]);
    }
    try {
      await addVerdictsToJunit(join(reportDir, "junit.xml"), built.report);
    } catch (error) {
      printError(redactor.scrub(`agent-conformance: junit.xml was not completed: ${error instanceof Error ? error.message : String(error)}`));
    }
    try {
      const { writeHtmlReport } = await import("../report/html.ts");
      await writeHtmlReport(built.report, reportDir);
    } catch (error) {
      printError(redactor.scrub(`agent-conformance: report.html was not written: ${error instanceof Error ? error.message : String(error)}`));
    }
    for (const line of summaryLines(built.report, reportDir)) print(runRedactor.scrub(line));
    if (built.executed === 0) printError("agent-conformance: no check was executed (all skipped or none selected)");
    return { exitCode: exitCodeOf(built), report: built.report };
  } finally {
    await pool?.close().catch(() => {});
    await fake?.close().catch(() => {});
    if (journalDir !== undefined) await rm(journalDir, { recursive: true, force: true });
  }
}
