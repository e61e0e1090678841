/**
 * An idempotency record that also keeps the fingerprint an older version of the service took,
 * over the body without one field, and an endpoint that still compares that one: a key reused
 * with a body differing only in that field replays instead of answering 409. Mutants only
 * (behavior.broken.fingerprintSkips); the conforming fake compares the whole body.
 */
import type { Behavior } from "../behavior/behavior.ts";
import { canonicalJson } from "../../schemas/canonical-json.ts";
import { fingerprintOfCanonical } from "../idempotency/fingerprint.ts";
import type { IdempotencyLookup, IdempotencyScope } from "../idempotency/store.ts";

/** Per scope of records: the older fingerprint of each key, written when the key is reserved. */
const looseFingerprints = new WeakMap<IdempotencyScope, Map<string, string>>();

/** The fingerprint of the body without the skipped field; undefined when nothing is skipped. */
function looseFingerprint(broken: Behavior["broken"], body: unknown): string | undefined {
  const skipped = broken.fingerprintSkips?.field;
  if (skipped === undefined) return undefined;
  if (typeof body !== "object" || body === null || Array.isArray(body))
    return fingerprintOfCanonical(canonicalJson(body));
  const rest = Object.fromEntries(Object.entries(body).filter(([name]) => name !== skipped));
  return fingerprintOfCanonical(canonicalJson(rest));
}

/** Keeps the older fingerprint beside a key just reserved, on either endpoint. */
export function rememberLooseFingerprint(
  broken: Behavior["broken"],
  records: IdempotencyScope,
  key: string,
  body: unknown,
): void {
  const loose = looseFingerprint(broken, body);
  if (loose === undefined) return;
  let ofScope = looseFingerprints.get(records);
  if (ofScope === undefined) looseFingerprints.set(records, (ofScope = new Map()));
  ofScope.set(key, loose);
}

/**
 * What the endpoint that compares the older fingerprint makes of a conflict: the stored outcome
 * (or "in flight") when the bodies differ only in the skipped field; the conflict otherwise.
 */
export function looseReplay(
  broken: Behavior["broken"],
  records: IdempotencyScope,
  key: string,
  body: unknown,
  operation: "create" | "stream",
  found: IdempotencyLookup,
): IdempotencyLookup {
  if (found.kind !== "conflict" || broken.fingerprintSkips?.on !== operation) return found;
  const stored = looseFingerprints.get(records)?.get(key);
  if (stored === undefined || stored !== looseFingerprint(broken, body)) return found;
  const outcome = records.outcomeOf(key);
  return outcome === undefined ? { kind: "in_flight" } : { kind: "replay", outcome };
}
