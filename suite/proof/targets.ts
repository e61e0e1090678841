/**
 * What the proof runs the whole suite against: the plain reference fake (in the full and the
 * smoke profile), the conforming variants (in the gate: all combinable ones together, each half
 * of them together, and each that does not combine alone; in verify-suite each one alone too),
 * and every mutant. Each target is the embedded fake with different options.
 */
import { MUTANTS, type Mutant } from "../../fake-server/variants/mutants.ts";
import { ALL_VARIANTS, combinableVariants, VARIANTS } from "../../fake-server/variants/variants.ts";

export type ProofTarget =
  | { readonly kind: "plain"; readonly name: "plain"; readonly fakeOptions: Record<string, unknown> }
  | { readonly kind: "smoke"; readonly name: "smoke"; readonly fakeOptions: Record<string, unknown> }
  | {
      readonly kind: "variant";
      readonly name: string;
      readonly fakeOptions: Record<string, unknown>;
      /** The variants it combines, each by name (`all` spelled out). */
      readonly variants: readonly string[];
    }
  | {
      readonly kind: "mutant";
      readonly name: string;
      readonly fakeOptions: Record<string, unknown>;
      readonly mutant: Mutant;
      /** Run with `--only interactions`: the interaction property alone must kill it. */
      readonly interactionsAlone?: true;
    };

/** How a target is named in messages: "plain fake", "variant crlf", "mutant page-off-by-one". */
export function labelOf(target: ProofTarget): string {
  if (target.kind === "plain") return "plain fake";
  if (target.kind === "smoke") return "plain fake (smoke profile)";
  if (target.kind === "mutant" && target.interactionsAlone === true)
    return `mutant ${target.name} (interactions alone)`;
  return `${target.kind} ${target.name}`;
}

export const PLAIN_TARGET: ProofTarget = { kind: "plain", name: "plain", fakeOptions: {} };

/** The plain fake under --profile smoke: the per-pull-request run. */
export const SMOKE_TARGET: ProofTarget = { kind: "smoke", name: "smoke", fakeOptions: {} };

/**
 * The combinable variants that leave the suite less to see (one delta, no citations, pages
 * clamped, keys restricted, numbers for timestamps) or only choose a status or a pace. Together
 * in `all`, one of them could hide another's effect from a check (a single delta leaves nothing
 * for split writes to cut between deltas), so the gate also runs them as one half and the other
 * combinable variants as the other: a variant a check mishandles must then hide in both runs it
 * is part of. A new combinable variant joins the other half unless it is named here.
 */
export const SIMPLIFYING_VARIANTS: readonly string[] = [
  "single-delta",
  "no-citations",
  "clamp-page-size",
  "strict-keys",
  "epoch-timestamps",
  "created-201",
  "delete-200",
  "rate-limited",
  "overloaded",
];

const COMBINABLE: readonly string[] = combinableVariants().map((v) => v.name);

/** The combinable variants split into the gate's two halves. */
export const VARIANT_HALVES: Readonly<Record<"simplifying" | "elaborating", readonly string[]>> = {
  simplifying: COMBINABLE.filter((name) => SIMPLIFYING_VARIANTS.includes(name)),
  elaborating: COMBINABLE.filter((name) => !SIMPLIFYING_VARIANTS.includes(name)),
};

const variantTarget = (name: string, variants: readonly string[]): ProofTarget => ({
  kind: "variant",
  name,
  fakeOptions: { variants: [...variants] },
  variants: variants.flatMap((v) => (v === ALL_VARIANTS ? COMBINABLE : [v])),
});

export interface TargetChoice {
  /**
   * Every variant alone as well (verify-suite): a failure then names the one variant a check
   * cannot take. The gate runs the combinations and the variants that combine with nothing,
   * which judge every variant in a third of the runs.
   */
  readonly everyVariantAlone?: boolean;
}

/** The variant runs: `all`, its two halves, the variants that combine with nothing, and (when asked) every variant alone. */
export function variantTargets(choice: TargetChoice = {}): ProofTarget[] {
  const alone = VARIANTS.filter((v) => choice.everyVariantAlone === true || !v.inAll);
  return [
    ...alone.map((v) => variantTarget(v.name, [v.name])),
    variantTarget(ALL_VARIANTS, [ALL_VARIANTS]),
    ...Object.entries(VARIANT_HALVES).map(([name, variants]) => variantTarget(name, variants)),
  ];
}

/** Every mutant but the interaction ones, judged by the whole suite. */
export function mutantTargets(): ProofTarget[] {
  return MUTANTS.filter((m) => !m.interaction).map((mutant) => ({
    kind: "mutant",
    name: mutant.name,
    fakeOptions: { mutant: mutant.name },
    mutant,
  }));
}

/**
 * Each interaction mutant, judged by the interaction property alone (`--only interactions`, a
 * deep walk): the one part of the suite that meets bugs between requests. Those the walk does not
 * yet catch in every run are left to the kill-rate table (their `measuredOnly` says why).
 */
export function interactionsAloneTargets(): ProofTarget[] {
  return MUTANTS.filter((m) => m.interaction && m.measuredOnly === undefined).map((mutant) => ({
    kind: "mutant",
    name: mutant.name,
    fakeOptions: { mutant: mutant.name },
    mutant,
    interactionsAlone: true,
  }));
}

/** Every target: the plain fake (full, smoke), the variants, the mutants, then the interaction mutants judged by the property alone. */
export function proofTargets(choice: TargetChoice = {}): ProofTarget[] {
  return [PLAIN_TARGET, SMOKE_TARGET, ...variantTargets(choice), ...mutantTargets(), ...interactionsAloneTargets()];
}

/**
 * The runs that wait longest, longest first (measured at four lanes, 2026-11-25: `variant all`
 * 77–85 s, `listing-lag` 48–62 s, `listing-never-settles` 42–46 s, `llm-pacing` 39–46 s,
 * `overloaded` 35–40 s; 2026-11-28: the halves `elaborating` 45 s and `simplifying` 46 s; most
 * runs take 5–15 s): paced answers, a lagging or never-settling listing, 503 and 429 answers
 * with Retry-After. They start first, so that no lane is still on one of them when the others
 * have run out of work (the gate runs the halves, verify-suite each variant alone as well).
 * Labels as `labelOf` gives them.
 */
export const SLOWEST_RUNS: readonly string[] = [
  "variant all",
  "variant elaborating",
  "variant listing-lag",
  "variant simplifying",
  "mutant listing-never-settles",
  "variant llm-pacing",
  "variant overloaded",
  "variant rate-limited",
];

/** The order in which to start `targets`: the slowest runs first, the others as given. */
export function startOrder<T extends { readonly target: ProofTarget }>(items: readonly T[]): T[] {
  const rank = (item: T) => {
    const index = SLOWEST_RUNS.indexOf(labelOf(item.target));
    return index === -1 ? SLOWEST_RUNS.length : index;
  };
  return [...items].sort((a, b) => rank(a) - rank(b));
}
