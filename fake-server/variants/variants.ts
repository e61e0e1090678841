/**
 * Conforming variants of the fake: each makes another LEGAL choice in one of the spec's
 * gaps. The suite must pass every one (no MUST failure), alone and combined, so it never
 * demands more than the spec says. Selected with `--variant NAME[,NAME]` (scripts/fake.ts)
 * or the `variants` option of createFakeServer; `all` is every variant that combines with
 * the others.
 */
import {
  DEFAULT_BEHAVIOR,
  patchBehavior,
  patchedPaths,
  type Behavior,
  type BehaviorPatch,
} from "../behavior/behavior.ts";
import { GATEWAY_BASE_PATH } from "../http/base-path.ts";
import { LISTING_LAG_MS } from "../deployment/listing-lag.ts";
import { OVERLOAD_EVERY } from "../deployment/overload.ts";
import { LLM_PACING, pacingPatch } from "../deployment/pacing.ts";
import { RATE_LIMIT } from "../deployment/rate-limit.ts";
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
const STREAM_GAP =
  "Each event has an `event:` line naming the event and a `data:` line (nothing forbids other SSE fields, comments, line endings or chunking).";
const TIMESTAMP_GAP = "Timestamp format of `created_at` and `updated_at`: not shown.";

export const VARIANTS: readonly Variant[] = Object.freeze([
  variant("created-201", STATUS_GAP, "create and stream answer 201", { successStatus: { create: 201, stream: 201 } }),
  variant(
    "problem-json",
    ERROR_GAP,
    "errors are RFC 9457 application/problem+json: type URI ending in the code, title, status, detail",
    { errorFormat: "problem" },
  ),
  variant("flat-errors", ERROR_GAP, "errors are {code, message} at the top level", { errorFormat: "flat" }, false),
  variant("heartbeats", STREAM_GAP, "a retry: 3000 line first and a `: keep-alive` comment before every event", {
    sseHeartbeats: true,
  }),
  variant("crlf", STREAM_GAP, "every SSE line ends with CRLF", { sseLineEnding: "\r\n" }),
  variant("event-ids", STREAM_GAP, "every event carries an id: line", { sseEventIds: true }),
  variant(
    "split-writes",
    STREAM_GAP,
    "every event is written in several pieces cut at arbitrary bytes, one inside a multi-byte UTF-8 character " +
      "(answers end with a sentence of multi-byte characters)",
    { sseSplitWrites: true, multibyteAnswers: true },
  ),
  variant(
    "three-messages",
    "Fields of a message item: not shown (nor how many messages an exchange adds).",
    "an exchange adds three messages: user, a tool note, assistant",
    { exchangeNote: true },
  ),
  variant(
    "epoch-timestamps",
    TIMESTAMP_GAP,
    "created_at and updated_at are epoch seconds (LIST-8 recommends RFC 3339, so a warning is expected)",
    { timestamps: "epoch-seconds" },
  ),
  variant(
    "clamp-page-size",
    "page_size maximum: 100 (what happens above it: not shown).",
    "page_size above 100 is served as 100 and echoed as 100",
    { oversizePageSize: "clamp" },
  ),
  variant("delete-200", STATUS_GAP, "delete answers 200 with the deleted conversation as its JSON body", {
    successStatus: { delete: 200 },
    deleteBody: "conversation",
  }),
  variant(
    "single-delta",
    "Normal order: `response.created`, then zero or more `response.output_text.delta`.",
    "the answer comes in one delta",
    { deltaCount: { min: 1, max: 1 } },
  ),
  variant(
    "no-citations",
    "Shape of a single citation: not shown (nor that there must be any).",
    "answers cite nothing: citations is always []",
    { citations: false },
  ),
  variant(
    "extra-fields",
    "Resources list their fields; nothing forbids more.",
    "every JSON body and event payload, at every level, carries fields the spec does not name",
    { extraFields: true },
  ),

  // What deployed services do: frameworks' own shapes, slow agents, limits, write-behind, gateways.
  variant(
    "fastapi-errors",
    ERROR_GAP,
    'errors are FastAPI\'s HTTPException(detail={...}): {"detail": {"code", "message"}}',
    { errorFormat: "fastapi" },
    false,
  ),
  variant(
    "jsonapi-errors",
    ERROR_GAP,
    'errors are a JSON:API document, application/vnd.api+json: {"errors": [{"status": "404", "code", "title", "detail"}]}',
    { errorFormat: "jsonapi" },
    false,
  ),
  variant(
    "microsecond-timestamps",
    TIMESTAMP_GAP,
    "timestamps are RFC 3339 with microseconds and the offset +01:00 (the same instant as UTC), e.g. 2026-11-23T21:41:46.123456+01:00",
    { timestamps: "rfc3339-micro-offset" },
    false,
  ),
  variant(
    "uuid-v7",
    "conversation_id: UUID (which version: not shown); fields of a message item: not shown.",
    "every id the fake mints (conversations, messages) is a time-ordered UUIDv7",
    { ids: "uuid-v7" },
  ),
  variant(
    "llm-pacing",
    "Normal order: `response.created`, then zero or more `response.output_text.delta`, then `response.completed` (how many, how far apart: not shown).",
    `LLM-like pacing: the first stream event after ${LLM_PACING.firstEventMs} ms, ${LLM_PACING.minDeltas} to ${LLM_PACING.maxDeltas} ` +
      `deltas ${LLM_PACING.deltaDelayMs} ms apart, and a plain create as slow as the stream of its answer ` +
      "(not in all: it chooses the delta count, as single-delta does)",
    pacingPatch(LLM_PACING),
    false,
  ),
  variant(
    "rate-limited",
    "Rate limits, message length limits, metadata size limits and the retention time of idempotency keys: not shown.",
    `a token bucket per API key (bursts of ${RATE_LIMIT.capacity}, then ${RATE_LIMIT.refillPerSecond} requests a second) in front of ` +
      "every /v1 request; an empty bucket answers 429 rate_limited with Retry-After (whole seconds, at least 1) and takes nothing",
    { rateLimit: RATE_LIMIT },
  ),
  variant(
    "overloaded",
    "Codes and statuses for validation, authentication, authorization and other failures: not shown.",
    `every ${OVERLOAD_EVERY}th create of an API key (plain or stream) is answered 503 service_unavailable with Retry-After: 1 ` +
      "before anything is done: nothing stored, the Idempotency-Key not recorded",
    { overloadEvery: OVERLOAD_EVERY },
  ),
  variant(
    "listing-lag",
    "States and transitions of resources: not shown (nor when a stored exchange reaches the listing).",
    `write-behind: an exchange reaches the listing ${LISTING_LAG_MS} ms after its create answered (a new conversation is 404 ` +
      "conversation_not_found to the listing until then; total, items and updated_at follow), and a delete as late (the deleted " +
      "conversation stays listed, whole, until then); continuing, replaying and deleting see every change at once " +
      "(LIST-11 recommends read-your-writes, so a warning is expected)",
    { listingLagMs: LISTING_LAG_MS },
  ),
  variant(
    "strict-keys",
    "Request headers: `Idempotency-Key: <unique_key>` (its format and length: not shown).",
    "an Idempotency-Key must be 1 to 64 letters, digits, '-' or '_' (a header validator's length and pattern), else 400 " +
      "idempotency_key_invalid: longer keys and keys with other punctuation are refused before anything is done",
    { idempotencyKeys: "short-token" },
  ),
  variant(
    "base-path",
    "Base address: `{base_url}`; every path begins with `/v1` (what comes before it: not shown).",
    `the API is served under ${GATEWAY_BASE_PATH}/v1 (the server's url includes ${GATEWAY_BASE_PATH}); /__fake stays at the root`,
    { basePath: GATEWAY_BASE_PATH },
  ),
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
    if (!found)
      throw new BehaviorSelectionError(
        `unknown variant ${JSON.stringify(name)}; known: ${[...VARIANT_NAMES, ALL_VARIANTS].join(", ")}`,
      );
    chosen.push(found);
  }
  const unique = [...new Map(chosen.map((v) => [v.name, v])).values()];
  const owner = new Map<string, string>();
  for (const v of unique) {
    for (const path of patchedPaths(v.patch)) {
      const other = owner.get(path);
      if (other !== undefined)
        throw new BehaviorSelectionError(`variants ${other} and ${v.name} both choose ${path}; pick one`);
      owner.set(path, v.name);
    }
  }
  const patches = unique.map((v) => v.patch);
  if (mutant !== undefined) {
    const found = mutantByName(mutant);
    if (!found)
      throw new BehaviorSelectionError(`unknown mutant ${JSON.stringify(mutant)}; known: ${MUTANT_NAMES.join(", ")}`);
    patches.push(found.patch);
  }
  return patchBehavior(DEFAULT_BEHAVIOR, patches);
}
