/**
 * What the proof runs the whole suite against: the plain reference fake, every conforming
 * variant alone and all combinable ones together, and every mutant. Each target is the
 * embedded fake with different options.
 */
import { MUTANTS, type Mutant } from "../../fake-server/mutants.ts";
import { ALL_VARIANTS, VARIANTS } from "../../fake-server/variants.ts";

export type ProofTarget =
  | { readonly kind: "plain"; readonly name: "plain"; readonly fakeOptions: Record<string, unknown> }
  | { readonly kind: "variant"; readonly name: string; readonly fakeOptions: Record<string, unknown> }
  | { readonly kind: "mutant"; readonly name: string; readonly fakeOptions: Record<string, unknown>; readonly mutant: Mutant };

/** How a target is named in messages: "plain fake", "variant crlf", "mutant page-off-by-one". */
export function labelOf(target: ProofTarget): string {
  return target.kind === "plain" ? "plain fake" : `${target.kind} ${target.name}`;
}

export const PLAIN_TARGET: ProofTarget = { kind: "plain", name: "plain", fakeOptions: {} };

export function variantTargets(): ProofTarget[] {
  return [...VARIANTS.map((v) => v.name), ALL_VARIANTS].map((name) => ({ kind: "variant", name, fakeOptions: { variants: [name] } }));
}

export function mutantTargets(): ProofTarget[] {
  return MUTANTS.map((mutant) => ({ kind: "mutant", name: mutant.name, fakeOptions: { mutant: mutant.name }, mutant }));
}

/** Every target: the plain fake, the variants, then the mutants. */
export function proofTargets(): ProofTarget[] {
  return [PLAIN_TARGET, ...variantTargets(), ...mutantTargets()];
}
