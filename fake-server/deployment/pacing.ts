/**
 * LLM-like pacing (the llm-pacing variant and the `pacing` option): the first stream event
 * after a moment of thought, tens of deltas a little apart, and a plain create as slow as
 * the stream of the same answer. The pauses go through the fault plan (faults/fault-plan.ts
 * `baseFaultPlan`), so they take the same timers as injected latency.
 */
import type { BehaviorPatch } from "../behavior/behavior.ts";

export interface PacingSettings {
  readonly firstEventMs: number;
  readonly deltaDelayMs: number;
  readonly minDeltas: number;
  readonly maxDeltas: number;
}

/**
 * The variant's numbers: a create takes about 150 + 26 × 6 ≈ 300 ms, so a full suite run of
 * about 150 creates, even one after another, adds under 50 s.
 */
export const LLM_PACING: PacingSettings = Object.freeze({
  firstEventMs: 150,
  deltaDelayMs: 6,
  minDeltas: 20,
  maxDeltas: 30,
});

/** The behavior change that paces answers this way. */
export function pacingPatch(settings: PacingSettings): BehaviorPatch {
  return {
    pacing: { firstEventMs: settings.firstEventMs, deltaDelayMs: settings.deltaDelayMs },
    deltaCount: { min: settings.minDeltas, max: settings.maxDeltas },
  };
}

/**
 * How long a paced plain create waits: as long as the stream of the same answer pauses,
 * before its first event, before each of its `deltas` deltas and before its terminal event.
 */
export function streamLengthMs(firstEventMs: number, deltaDelayMs: number, deltas: number): number {
  return firstEventMs + (deltas + 1) * deltaDelayMs;
}
