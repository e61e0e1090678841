/**
 * The messages between the proof and its lanes (child processes that each run one
 * conformance run at a time, in process, through runConformance).
 */
import { z } from "zod";

export const LaneJob = z.object({
  id: z.int().nonnegative(),
  reportDir: z.string().min(1),
  fakeOptions: z.record(z.string(), z.unknown()),
  /** fast-check runs per property; the suite's default when absent. */
  runs: z.int().positive().optional(),
  seed: z.int().nonnegative().optional(),
  /** --settle-ms of the run; the suite's default when absent. */
  settleMs: z.int().nonnegative().optional(),
  /** --only of the run; every requirement when absent. */
  only: z.array(z.string()).optional(),
  /** --profile of the run; the suite's default (full) when absent. */
  profile: z.enum(["full", "smoke", "deep"]).optional(),
  /** --max-creates of the run; the profile's cap when absent. */
  maxCreates: z.int().positive().optional(),
  /**
   * Walks at most, each with a seed of its own, until one fails a requirement of `killedBy` (an
   * interaction mutant, whose kill by a random walk is likely, not certain); one when absent.
   */
  walks: z.int().positive().optional(),
  killedBy: z.array(z.string()).optional(),
});
export type LaneJob = z.infer<typeof LaneJob>;

export const LaneResult = z.object({
  id: z.int().nonnegative(),
  exitCode: z.union([z.literal(0), z.literal(1), z.literal(2), z.literal(3)]),
  /** What the runner printed as errors (configuration, harness), for a run that stopped early. */
  errors: z.array(z.string()),
  durationMs: z.number().nonnegative(),
  /** How many walks ran (the report is the last one's). */
  walks: z.int().positive().optional(),
});
export type LaneResult = z.infer<typeof LaneResult>;
