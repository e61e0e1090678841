/**
 * Runs the whole conformance suite against many targets, a few at a time, and reads each
 * run's conformance.json: the one module the gate test and `npm run verify-suite` share.
 * Each lane is a child process (lane.ts) that runs one target at a time; a queue hands the
 * next target to whichever lane finishes first.
 */
import { fork, type ChildProcess } from "node:child_process";
import { readFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import type { ConformanceReport } from "../report/report-types.ts";
import { LaneResult, type LaneJob } from "./lane-protocol.ts";
import { INTERACTIONS_FAMILY } from "../checks/runtime/selection.ts";
import { labelOf, startOrder, type ProofTarget } from "./targets.ts";
import { WITH_TSX } from "../test-support/node-with-tsx.ts";

const ROOT = resolve(import.meta.dirname, "../..");
const LANE = join(import.meta.dirname, "lane.ts");
/**
 * --settle-ms of the proof's runs. The lagging targets (the listing-lag variant, `all`, the
 * listing-never-settles mutant) show an exchange 300 ms after answering it; the suite's
 * default of 3 s is for deployed services. Only a listing that never shows what a check
 * expects waits the whole window (the listing mutants), and a shorter window can only fail a
 * target sooner, never pass one that a longer window would fail.
 */
export const PROOF_SETTLE_MS = 1_000;
/** Kept of a lane's stderr, to explain a lane that died. */
const STDERR_TAIL_CHARS = 4_000;

/** Creates of the property's deep walk against one interaction mutant (its sequences of 24 until every cell is met). */
export const INTERACTIONS_ALONE_CREATES = 72;
/**
 * Deep walks an interaction mutant gets at most, the second (with a seed of its own) only when
 * the first missed it: a random walk meets a bug's combination in most walks, not in every one,
 * and on a loaded machine timing decides some races. The report says how many walks it took.
 */
export const INTERACTIONS_ALONE_WALKS = 2;

export interface TargetRun {
  readonly target: ProofTarget;
  readonly exitCode: 0 | 1 | 2 | 3;
  /** Undefined when the run stopped before writing conformance.json. */
  readonly report: ConformanceReport | undefined;
  /** Why the run stopped early or the lane failed; empty for a run that reached its verdicts. */
  readonly errors: readonly string[];
  readonly durationMs: number;
  readonly reportDir: string;
  /** Walks run (an interaction mutant's second walk runs only when the first missed it); the report is the last one's. */
  readonly walks?: number;
}

export interface RunTargetsOptions {
  /** Where each target's report directory goes (one subdirectory per target). */
  reportRoot: string;
  /** Runs in parallel (default 2). */
  lanes?: number;
  /** fast-check runs per property (default: the suite's). */
  runs?: number;
  /** fast-check seed of every run (default: a fresh one per run, recorded in its report). */
  seed?: number;
  /** --settle-ms of every run (default PROOF_SETTLE_MS). */
  settleMs?: number;
  /** A run longer than this kills its lane and counts as a harness failure (default 240 s: paced and rate-limited variants take a minute alone). */
  targetTimeoutMs?: number;
  /**
   * Each mutant's run (but an interaction mutant's walk) selects only the requirements its bug
   * breaks (--only), as a developer re-runs one finding: the gate's choice, a fraction of the whole
   * suite's cost. verify-suite runs the whole suite against each, for the whole kill matrix.
   */
  focusMutants?: boolean;
  /** Called as each run finishes (progress). */
  onRun?: (run: TargetRun, done: number, total: number) => void;
}

async function readReport(reportDir: string): Promise<ConformanceReport | undefined> {
  try {
    return JSON.parse(await readFile(join(reportDir, "conformance.json"), "utf8")) as ConformanceReport;
  } catch {
    return undefined;
  }
}

/** A directory name for a target: its kind and name, nothing a file system would mind. */
function dirName(target: ProofTarget): string {
  return `${target.kind}-${target.name}`.replace(/[^A-Za-z0-9._-]/g, "_");
}

interface Lane {
  readonly child: ChildProcess;
  stderr: string;
  job: { job: LaneJob; target: ProofTarget; started: number; timer: NodeJS.Timeout } | undefined;
}

/** Closing the channel ends the lane (lane.ts exits on disconnect). */
function release(lane: Lane): void {
  if (lane.child.connected) lane.child.disconnect();
}

/** Runs every target and resolves with one TargetRun each, in the order of `targets`. */
export function runTargets(targets: readonly ProofTarget[], options: RunTargetsOptions): Promise<TargetRun[]> {
  const laneCount = Math.max(1, Math.min(options.lanes ?? 2, targets.length));
  const timeoutMs = options.targetTimeoutMs ?? 240_000;
  // Started slowest first; the results keep the order of `targets`.
  const queue = startOrder(targets.map((target, id) => ({ target, id })));
  const results: (TargetRun | undefined)[] = targets.map(() => undefined);
  let finished = 0;
  // Bounded: a lane that dies is replaced at most once per target.
  let replacementsLeft = targets.length;

  return new Promise<TargetRun[]>((resolveAll, rejectAll) => {
    const lanes = new Set<Lane>();

    const settle = (id: number, run: TargetRun) => {
      if (results[id] !== undefined) return;
      results[id] = run;
      finished++;
      options.onRun?.(run, finished, targets.length);
      if (finished === targets.length) {
        for (const lane of lanes) release(lane);
        resolveAll(results.filter((r): r is TargetRun => r !== undefined));
      }
    };

    const record = async (id: number, target: ProofTarget, reportDir: string, result: LaneResult) => {
      const report = await readReport(reportDir);
      settle(id, {
        target,
        exitCode: result.exitCode,
        report,
        errors: result.errors,
        durationMs: result.durationMs,
        reportDir,
        ...(result.walks === undefined ? {} : { walks: result.walks }),
      });
    };

    const next = (lane: Lane) => {
      const item = queue.shift();
      if (item === undefined) {
        lane.job = undefined;
        release(lane);
        return;
      }
      if (!lane.child.connected) {
        // The lane is gone; its exit starts a replacement that takes this target.
        queue.unshift(item);
        return;
      }
      const reportDir = join(options.reportRoot, dirName(item.target));
      const job: LaneJob = {
        id: item.id,
        reportDir,
        fakeOptions: item.target.fakeOptions,
        ...(item.target.kind === "smoke" ? { profile: "smoke" as const } : {}),
        // The property alone, walking as a deep run does (the fake is free), within a bound that keeps the gate short.
        ...(item.target.kind === "mutant" && item.target.interactionsAlone === true
          ? {
              only: [INTERACTIONS_FAMILY],
              profile: "deep" as const,
              maxCreates: INTERACTIONS_ALONE_CREATES,
              walks: INTERACTIONS_ALONE_WALKS,
              killedBy: [item.target.mutant.requirement, ...(item.target.mutant.also ?? [])],
            }
          : {}),
        ...(options.focusMutants === true && item.target.kind === "mutant" && item.target.interactionsAlone !== true
          ? { only: [item.target.mutant.requirement, ...(item.target.mutant.also ?? [])] }
          : {}),
        ...(options.runs === undefined ? {} : { runs: options.runs }),
        ...(options.seed === undefined ? {} : { seed: options.seed }),
        settleMs: options.settleMs ?? PROOF_SETTLE_MS,
      };
      // Each walk of the property alone is a run of its own: the backstop is per walk.
      const timer = setTimeout(
        () => {
          lane.child.kill("SIGKILL");
        },
        timeoutMs * (job.walks ?? 1),
      );
      lane.job = { job, target: item.target, started: performance.now(), timer };
      lane.child.send(job);
    };

    /** After a lane ended: another one takes the queue, or, with none left, the queue is reported unrun. */
    const replaceLane = () => {
      if (queue.length === 0) return;
      if (lanes.size < laneCount && replacementsLeft-- > 0) {
        startLane();
        return;
      }
      if (lanes.size > 0) return;
      for (const item of queue.splice(0)) {
        settle(item.id, {
          target: item.target,
          exitCode: 2,
          report: undefined,
          errors: ["not run: every lane died"],
          durationMs: 0,
          reportDir: join(options.reportRoot, dirName(item.target)),
        });
      }
    };

    const startLane = () => {
      const child = fork(LANE, [], {
        cwd: ROOT,
        execArgv: [...WITH_TSX],
        stdio: ["ignore", "ignore", "pipe", "ipc"],
      });
      const lane: Lane = { child, stderr: "", job: undefined };
      lanes.add(lane);
      child.stderr?.on("data", (chunk: Buffer) => {
        lane.stderr = (lane.stderr + chunk.toString()).slice(-STDERR_TAIL_CHARS);
      });
      child.on("message", (message: unknown) => {
        const current = lane.job;
        const parsed = LaneResult.safeParse(message);
        if (current === undefined || !parsed.success || parsed.data.id !== current.job.id) return;
        clearTimeout(current.timer);
        lane.job = undefined;
        void record(current.job.id, current.target, current.job.reportDir, parsed.data).then(
          () => next(lane),
          rejectAll,
        );
      });
      child.on("error", (error) => {
        lane.stderr = `${lane.stderr}\n${error.message}`.slice(-STDERR_TAIL_CHARS);
        child.kill("SIGKILL");
      });
      child.on("exit", (code, signal) => {
        lanes.delete(lane);
        const current = lane.job;
        if (current !== undefined) {
          clearTimeout(current.timer);
          const elapsed = performance.now() - current.started;
          const limit = timeoutMs * (current.job.walks ?? 1);
          const why = elapsed >= limit ? `it ran longer than ${limit} ms` : `exit ${code ?? signal}`;
          settle(current.job.id, {
            target: current.target,
            exitCode: 2,
            report: undefined,
            errors: [
              `the lane running ${labelOf(current.target)} died (${why}); its stderr ended with:\n${lane.stderr}`,
            ],
            durationMs: elapsed,
            reportDir: current.job.reportDir,
          });
        }
        replaceLane();
      });
      next(lane);
    };

    for (let i = 0; i < laneCount; i++) startLane();
  });
}
