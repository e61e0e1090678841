/**
 * Two ways a stream handler mishandles the key of a stream its client left before the end (the
 * exchange itself still completes and is stored, as in the conforming fake). Mutants only
 * (behavior.broken.droppedStreamKey), and on the stream endpoint only; plain replays are right.
 *  - "rerun": the record is marked undelivered, and a stream under that key is taken for a
 *    resume of an undelivered answer: it runs the exchange again instead of replaying it.
 *  - "locked": the stream handler's own lock on the key is released in a `finally` that never
 *    runs once the client is gone, and has no expiry: every later stream under it is 409.
 */
import type { ServerResponse } from "node:http";
import type { Behavior } from "../behavior/behavior.ts";
import { clientGoneSignal } from "../http/disconnect.ts";
import { ABSENT, type IdempotencyLookup, type IdempotencyScope, type Reservation } from "./store.ts";

const IN_FLIGHT: IdempotencyLookup = Object.freeze({ kind: "in_flight" });

/** Per scope of records: the keys of streams whose client left before the end. */
const droppedKeys = new WeakMap<IdempotencyScope, Set<string>>();

/**
 * Call when a fresh exchange starts; the returned function, called once it completed, notes its
 * key if the client had gone. Undefined in the conforming fake, and for a plain create.
 */
export function deliveryWatch(
  behavior: Pick<Behavior, "broken">,
  operation: "create" | "stream",
  res: ServerResponse,
  reservation: Reservation,
): (() => void) | undefined {
  if (behavior.broken.droppedStreamKey === null || operation !== "stream") return undefined;
  const gone = clientGoneSignal(res);
  return () => {
    if (!gone.aborted) return;
    let keys = droppedKeys.get(reservation.scope);
    if (keys === undefined) droppedKeys.set(reservation.scope, (keys = new Set()));
    keys.add(reservation.key);
  };
}

/** What a stream request finds under a key, once a dropped stream's key is mishandled. */
export function droppedStreamLookup(
  behavior: Pick<Behavior, "broken">,
  records: IdempotencyScope,
  key: string,
  operation: "create" | "stream",
  found: IdempotencyLookup,
): IdempotencyLookup {
  const mode = behavior.broken.droppedStreamKey;
  const keys = droppedKeys.get(records);
  if (mode === null || operation !== "stream" || keys === undefined || !keys.has(key)) return found;
  if (mode === "locked") return IN_FLIGHT;
  if (found.kind !== "replay") return found;
  // Run again; the new run's record replaces the undelivered one.
  keys.delete(key);
  return ABSENT;
}
