/**
 * --dry-run: what a run would do, and nothing of it. The checks are collected (no body runs),
 * planned against the cap (dry-run-plan.ts) and printed with the target, its identities and the
 * settings in use, every secret redacted. No request is sent, the embedded fake is not started
 * and no report is written: exit 0, or 2 when a check file cannot even be collected.
 */

import { tmpdir } from "node:os";
import { join } from "node:path";
import { redactKey, type Redactor } from "../http/redact.ts";
import type { RunSettings } from "../checks/runtime/run-settings.ts";
import type { ConformanceConfig } from "./config.ts";
import { planRun, type DryRunPlan } from "./dry-run-plan.ts";
import { collectChecks } from "./vitest-collect.ts";

export interface DryRunInput {
  readonly config: ConformanceConfig;
  /** The worker's settings as a run would resolve them (the embedded fake's identities when it would start one). */
  readonly settings: Omit<RunSettings, "journalPath">;
  /** Whether the run would start the embedded fake (no --base-url). */
  readonly embedded: boolean;
  readonly root: string;
  readonly checksDir: string;
  readonly redactor: Redactor;
  readonly reportDir: string;
  readonly print: (line: string) => void;
  readonly printError: (line: string) => void;
}

/** The most the preflight may create before any check: none against the embedded fake's own identities; one create, and with another agent two bodies a broken target might accept. */
function preflightCreates(config: ConformanceConfig, embedded: boolean): number {
  const ownFake =
    embedded && [config.apiKey, config.agentId, config.otherAgentId, config.otherApiKey].every((v) => v === undefined);
  if (ownFake) return 0;
  return config.otherAgentId === undefined ? 1 : 2;
}

export async function dryRun(input: DryRunInput): Promise<0 | 2> {
  const { config, settings, redactor } = input;
  // The worker reads the settings and never writes the journal: no check body runs.
  const collected = await collectChecks({
    root: input.root,
    checksDir: input.checksDir,
    settings: { ...settings, journalPath: join(tmpdir(), "agent-conformance-dry-run.jsonl") },
    redactor,
  });
  if (collected.errors.length > 0) {
    for (const error of collected.errors) input.printError(`agent-conformance: --dry-run: ${error}`);
    return 2;
  }
  const plan = planRun(collected.checks, {
    cap: settings.maxCreates,
    preflight: preflightCreates(config, input.embedded),
    profile: settings.profile,
    otherAgent: settings.otherAgent !== undefined,
    otherKey: settings.otherKey !== undefined,
  });
  for (const line of dryRunLines(input, plan)) input.print(redactor.scrub(line));
  return 0;
}

function identityLines(input: DryRunInput): string[] {
  const { settings, config, embedded } = input;
  const fakes = embedded && config.apiKey === undefined ? " (the embedded fake's own)" : "";
  const lines = [
    `  primary        agent ${settings.primary.agentId}, key ${redactKey(settings.primary.apiKey ?? "")}${fakes}`,
  ];
  lines.push(
    settings.otherAgent === undefined
      ? "  other agent    not given: the checks that need it are skipped (--other-agent-id)"
      : `  other agent    agent ${settings.otherAgent.agentId}, with the primary key`,
  );
  lines.push(
    settings.otherKey === undefined
      ? "  other key      not given: the checks that need it are skipped (--other-api-key)"
      : `  other key      key ${redactKey(settings.otherKey.apiKey ?? "")}, for agent ${settings.otherKey.agentId}`,
  );
  const header = settings.streamErrorHeader;
  lines.push(
    header === undefined
      ? "  stream error   no header provokes one: SSE-6 judges the error events the run happens to see (--stream-error-header)"
      : `  stream error   ${header.name}: ${header.value}`,
  );
  return lines;
}

function settingLines(input: DryRunInput): string[] {
  const { config, settings } = input;
  const list = (values: readonly string[]) => (values.length === 0 ? "none" : values.join(","));
  const headers = Object.keys(settings.headers);
  const lines = [
    `  profile ${settings.profile}; cap ${settings.maxCreates} creates${config.maxCreates === undefined ? " (the profile's)" : " (--max-creates)"}`,
    `  --only ${list(config.only)}; --exclude ${list(config.exclude)}${settings.shard === undefined ? "" : `; --shard ${settings.shard.index}/${settings.shard.count} (${settings.shard.requirements.length} requirement(s) in this share)`}`,
    `  seed ${config.seed === undefined ? "random (the run prints the one it draws)" : String(settings.seed)}${settings.path === undefined ? "" : `, path ${settings.path}`}; runs ${settings.runs}`,
    `  concurrency ${settings.concurrency}; max rps ${settings.maxRps ?? "no pacing"}; max retries ${settings.maxRetries}; settle ${settings.settleMs} ms`,
    `  timeouts: request ${settings.requestTimeoutMs} ms, first event ${settings.firstEventTimeoutMs} ms, idle ${settings.idleTimeoutMs} ms, stream ${settings.streamTimeoutMs} ms, check ${settings.checkTimeoutMs} ms`,
    `  limits: response ${settings.maxResponseBytes} bytes, stream ${settings.maxStreamBytes} bytes`,
    `  headers on every request: ${headers.length === 0 ? "none" : headers.map((name) => `${name}: (redacted)`).join(", ")}`,
    `  strict ${config.strict ? "yes" : "no"}; baseline ${config.baseline ?? "none"}; rerun-failed ${config.rerunFailed ?? "no"}`,
    `  reports would go to ${input.reportDir} (a dry run writes none)`,
  ];
  const fakeOptions = Object.entries(config.fakeOptions);
  if (fakeOptions.length > 0)
    lines.push(
      `  embedded fake options: ${fakeOptions.map(([name, value]) => `${name}=${JSON.stringify(value)}`).join(", ")}`,
    );
  return lines;
}

export function checkLines(plan: DryRunPlan): string[] {
  const lines: string[] = [];
  for (const check of plan.checks) {
    if (check.skip !== undefined) {
      lines.push(`     skip  ${check.name} (${check.skip})`);
      continue;
    }
    const notes = [
      ...check.builds.map(
        (b) => `builds the shared ${b.name}: ${b.takesRest ? `up to ${b.creates}, what the budget leaves` : b.creates}`,
      ),
      ...check.reads.map((name) => `reads the shared ${name}`),
    ];
    lines.push(
      `  ${String(check.creates).padStart(7)}  ${check.name}${notes.length === 0 ? "" : ` (${notes.join("; ")})`}`,
    );
  }
  return lines;
}

export function dryRunLines(input: DryRunInput, plan: DryRunPlan): string[] {
  const running = plan.checks.filter((c) => c.skip === undefined).length;
  const { cap, preflight } = plan.settings;
  const most = plan.checksTotal + preflight;
  const target = input.embedded
    ? "the embedded fake, started on a free port when the run starts"
    : input.settings.baseUrl;
  return [
    "Dry run: nothing is sent, no fake is started and no report is written.",
    "",
    `Target: ${target}`,
    "Identities:",
    ...identityLines(input),
    "Settings:",
    ...settingLines(input),
    "",
    `Checks, in the order the run makes them (${running} to run, ${plan.checks.length - running} skipped, ${plan.notSelected} not selected); creates: the most each may spend`,
    "  creates  check",
    ...checkLines(plan),
    "",
    `Creates: at most ${Math.min(cap, most)} of the cap of ${cap}: ${plan.checksTotal} by the checks, each at its most, ` +
      `${preflight === 0 ? "none" : `at most ${preflight}`} by the preflight (deleted at once)` +
      (most > cap
        ? `; that is more than the cap, so the budget decides at run time, first come, first served: a check that does not spend all it reserved gives the rest back, and a late check the rest cannot cover is skipped (budget)`
        : ""),
  ];
}
