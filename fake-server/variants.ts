/**
 * Conforming variants of the fake: each makes another LEGAL choice in one of the spec's
 * gaps. The suite must pass every one (no MUST failure), alone and combined, so it never
 * demands more than the spec says. Selected with `--variant NAME[,NAME]` (scripts/fake.ts)
 * or the `variants` option of createFakeServer; `all` is every variant that combines with
 * the others.
 */
import { DEFAULT_BEHAVIOR, patchBehavior, patchedPaths, type Behavior, type BehaviorPatch } from "./behavior.ts";
import { mutantByName, MUTANT_NAMES } from "./mutants.ts";

export interface Variant {
  readonly name: string;
  /** The gap of SPEC.md it fills differently. */
  readonly gap: string;
  readonly description: string;
  readonly patch: BehaviorPatch;
  /** false when it excludes another variant (another answer to the same gap); left out of `all`. */
  readonly inAll: boolean;
}

const variant = (name: string, gap: string, description: string, patch: BehaviorPatch, inAll = true): Variant =>
  Object.freeze({ name, gap, description, patch: Object.freeze(patch), inAll });

const STATUS_GAP = "Success status codes of all endpoints, and the response body of the delete operation: not shown.";
const ERROR_GAP = "Body format of HTTP error responses: not shown.";
const STREAM_GAP = "Each event has an `event:` line naming the event and a `data:` line (nothing forbids other SSE fields, comments, line endings or chunking).";

export const VARIANTS: readonly Variant[] = Object.freeze([
  variant("created-201", STATUS_GAP, "create and stream answer 201", { successStatus: { create: 201, stream: 201 } }),
  variant("problem-json", ERROR_GAP,
    "errors are RFC 9457 application/problem+json: type URI ending in the code, title, status, detail",
    { errorFormat: "problem" }),
  variant("flat-errors", ERROR_GAP, "errors are {code, message} at the top level", { errorFormat: "flat" }, false),
  variant("heartbeats", STREAM_GAP, "a retry: 3000 line first and a `: keep-alive` comment before every event", { sseHeartbeats: true }),
  variant("crlf", STREAM_GAP, "every SSE line ends with CRLF", { sseLineEnding: "\r\n" }),
  variant("event-ids", STREAM_GAP, "every event carries an id: line", { sseEventIds: true }),
  variant("split-writes", STREAM_GAP,
    "every event is written in several pieces cut at arbitrary bytes, one inside a multi-byte UTF-8 character " +
      "(answers end with a sentence of multi-byte characters)",
    { sseSplitWrites: true, multibyteAnswers: true }),
  variant("three-messages", "Fields of a message item: not shown (nor how many messages an exchange adds).",
    "an exchange adds three messages: user, a tool note, assistant", { exchangeNote: true }),
  variant("epoch-timestamps", "Timestamp format of `created_at` and `updated_at`: not shown.",
    "created_at and updated_at are epoch seconds (LIST-8 recommends RFC 3339, so a warning is expected)",
    { timestamps: "epoch-seconds" }),
  variant("clamp-page-size", "page_size maximum: 100 (what happens above it: not shown).",
    "page_size above 100 is served as 100 and echoed as 100", { oversizePageSize: "clamp" }),
  variant("delete-200", STATUS_GAP, "delete answers 200 with the deleted conversation as its JSON body",
    { successStatus: { delete: 200 }, deleteBody: "conversation" }),
  variant("single-delta", "Normal order: `response.created`, then zero or more `response.output_text.delta`.",
    "the answer comes in one delta", { deltaCount: { min: 1, max: 1 } }),
  variant("no-citations", "Shape of a single citation: not shown (nor that there must be any).",
    "answers cite nothing: citations is always []", { citations: false }),
  variant("extra-fields", "Resources list their fields; nothing forbids more.",
    "every JSON body and event payload, at every level, carries fields the spec does not name", { extraFields: true }),
]);

/** The name that selects every variant with `inAll`. */
export const ALL_VARIANTS = "all";

export const VARIANT_NAMES: readonly string[] = VARIANTS.map((v) => v.name);

export function variantByName(name: string): Variant | undefined {
  return VARIANTS.find((v) => v.name === name);
}

/** The variants `all` stands for. */
export function combinableVariants(): Variant[] {
  return VARIANTS.filter((v) => v.inAll);
}

/** A mutant or variant name the fake does not know, or variants that choose differently in the same gap. */
export class BehaviorSelectionError extends Error {
  override name = "BehaviorSelectionError";
}

/** `variants` as a list: an array, or one comma-separated string (as flags and --fake-option give it). */
export function variantList(variants: string | readonly string[] | undefined): string[] {
  if (variants === undefined) return [];
  const items = typeof variants === "string" ? variants.split(",") : [...variants];
  return items.map((v) => v.trim()).filter((v) => v !== "");
}

/**
 * The behavior of a fake run with these variants and this mutant (none: the conforming
 * default). Unknown names and variants that disagree about one choice are errors naming
 * what is known.
 */
export function selectBehavior(mutant: string | undefined, variants: readonly string[]): Behavior {
  const chosen: Variant[] = [];
  for (const name of variants) {
    if (name === ALL_VARIANTS) {
      chosen.push(...combinableVariants());
      continue;
    }
    const found = variantByName(name);
    if (!found) throw new BehaviorSelectionError(`unknown variant ${JSON.stringify(name)}; known: ${[...VARIANT_NAMES, ALL_VARIANTS].join(", ")}`);
    chosen.push(found);
  }
  const unique = [...new Map(chosen.map((v) => [v.name, v])).values()];
  const owner = new Map<string, string>();
  for (const v of unique) {
    for (const path of patchedPaths(v.patch)) {
      const other = owner.get(path);
      if (other !== undefined) throw new BehaviorSelectionError(`variants ${other} and ${v.name} both choose ${path}; pick one`);
      owner.set(path, v.name);
    }
  }
  const patches = unique.map((v) => v.patch);
  if (mutant !== undefined) {
    const found = mutantByName(mutant);
    if (!found) throw new BehaviorSelectionError(`unknown mutant ${JSON.stringify(mutant)}; known: ${MUTANT_NAMES.join(", ")}`);
    patches.push(found.patch);
  }
  return patchBehavior(DEFAULT_BEHAVIOR, patches);
}
