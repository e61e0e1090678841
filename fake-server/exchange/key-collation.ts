/**
 * Idempotency keys matched looser than the header was sent, as a database column does it: a
 * case-insensitive collation (MySQL's default `_ci` on a turns table keyed by conversation and
 * key) or a VARCHAR(40) that a non-strict server truncates silently (the key a conversation was
 * created under). A key without a record of its own then replays an earlier key's record when
 * the payload is the same. Mutants only (behavior.broken.keyCollation).
 */
import type { Behavior } from "../behavior/behavior.ts";
import type { FakeResponseRequest } from "../../schemas/index.ts";
import type { IdempotencyScope, StoredOutcome } from "../idempotency/store.ts";

/** How many characters of a new conversation's key the truncating column keeps. */
export const KEY_COLUMN_CHARS = 40;

/** The key as the column compares it, for the requests the column serves; undefined for the others. */
function folded(
  collation: Behavior["broken"]["keyCollation"],
  key: string,
  operation: "create" | "stream",
  request: Pick<FakeResponseRequest, "conversation_id">,
): string | undefined {
  const continuing = typeof request.conversation_id === "string";
  if (collation === "case-insensitive-turns")
    return operation === "create" && continuing ? key.toLowerCase() : undefined;
  if (collation === "first-40-new-conversations") return continuing ? undefined : key.slice(0, KEY_COLUMN_CHARS);
  return undefined;
}

/**
 * The outcome of an earlier key that the column takes for this one (another key, equal once
 * folded, finished, with the same payload); undefined when there is none.
 */
export function collidingOutcome(
  broken: Behavior["broken"],
  records: IdempotencyScope,
  key: string,
  fingerprint: string,
  operation: "create" | "stream",
  request: Pick<FakeResponseRequest, "conversation_id">,
): StoredOutcome | undefined {
  const wanted = folded(broken.keyCollation, key, operation, request);
  if (wanted === undefined) return undefined;
  for (const stored of records.records.keys()) {
    if (stored === key || folded(broken.keyCollation, stored, operation, request) !== wanted) continue;
    const found = records.lookup(stored, fingerprint);
    if (found.kind === "replay") return found.outcome;
  }
  return undefined;
}
