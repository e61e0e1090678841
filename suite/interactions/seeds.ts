/**
 * The seeds a sweep runs: consecutive from a base, the base chosen afresh each time (or given
 * with INTERACTIONS_SEED), so every run of the tests explores new sequences and any failure
 * names the seed that reproduces it.
 */
import { randomInt } from "node:crypto";

export const MAX_SEED = 2 ** 31 - 1;

export function baseSeed(fromEnvironment: string | undefined): number {
  if (fromEnvironment !== undefined && /^\d+$/.test(fromEnvironment)) return Number(fromEnvironment) % MAX_SEED;
  return randomInt(0, MAX_SEED - 10_000);
}

export function seedsFrom(base: number, count: number): number[] {
  return Array.from({ length: count }, (_, i) => (base + i) % MAX_SEED);
}
