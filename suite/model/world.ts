/**
 * One possible state of the service, as far as the spec lets the model know it. When an
 * outcome is unknown, or operations overlapped, several worlds stay possible side by side;
 * each world is immutable, and a step builds new ones.
 */
import { createHash } from "node:crypto";
import type { RequirementId } from "../../requirements/catalog.ts";
import type { Caller, CreateResult, Endpoint } from "./operation.ts";
import type { Words } from "./violation.ts";
import { onceEach, onceEachText, TextNumbers } from "./memo.ts";

export interface ExchangeRecord {
  /** The operation whose exchange this is. */
  readonly op: number;
  readonly message: string;
  readonly endpoint: Endpoint;
  /** When its request was sent and when its answer ended. */
  readonly at: number;
  readonly end: number;
  /**
   * Its request's outcome was unknown (the client left its stream, the answer broke off): a
   * service that stores the answer only once it was delivered stores such an exchange in part.
   */
  readonly unfinished?: true;
}

/** An exchange that may still arrive, with the record its key gets when it does. */
export interface LateExchange extends ExchangeRecord {
  readonly record: KeyRecord | undefined;
  /**
   * The service answered it (a 5xx) rather than the client letting go: what it stores of it
   * shows within --settle-ms of that answer or never. A dropped stream may go on generating.
   */
  readonly answered: boolean;
}

/**
 * An operation that should not have changed a conversation, but would have if the service is
 * wrong in one particular way (a replay that ran again, a loser of a key race, another scope's
 * continuation). When a listing shows more than the model expects, these are the explanations,
 * each naming the requirement it breaks.
 */
export interface Suspect {
  readonly op: number;
  readonly message: string;
  readonly requirement: RequirementId;
  readonly why: Words;
}

/** The last `updated_at` a listing showed, and how many exchanges it had then. */
export interface UpdatedAtSeen {
  readonly ms: number;
  readonly raw: unknown;
  readonly exchanges: number;
  /**
   * When the first listing that showed it ended: the stamp was written by then. Not when the last
   * exchange it showed was answered: a service that stores or stamps after answering (a read model
   * that lags) writes it later.
   */
  readonly at: number;
  /** That first listing. */
  readonly op: number;
}

export interface ConversationState {
  readonly id: string;
  readonly owner: Caller;
  /** In the order they took effect. */
  readonly exchanges: readonly ExchangeRecord[];
  /** The delete that removed it (#n), once one answered 2xx. */
  readonly deletedBy: number | undefined;
  readonly suspects: readonly Suspect[];
  readonly updatedAt: UpdatedAtSeen | undefined;
  /**
   * How many of its exchanges (the first ones) the last listing counted: an exchange arriving
   * late was stored after them, as a listing shows a prefix of what was stored (a read model
   * that lags still applies writes in their order).
   */
  readonly listed?: number;
}

export interface KeyRecord {
  readonly op: number;
  readonly who: Caller;
  readonly key: string;
  readonly endpoint: Endpoint;
  readonly payload: string;
  /** The body as sent, when known: a replay written otherwise is still a replay (IDEM-8). */
  readonly raw: string | undefined;
  readonly at: number;
  readonly end: number;
  /** What the first request with this key gave back; undefined while that is unknown. */
  readonly result: CreateResult | undefined;
}

/**
 * How many messages a conversation of n exchanges lists: base + perExchange·n. The service
 * chooses both (two or three messages per exchange, a greeting first or not); every pair still
 * possible is kept, and "any" until a first listing narrows it.
 */
export type Counting = "any" | readonly CountingPair[];
export interface CountingPair {
  readonly base: number;
  readonly perExchange: number;
}

/** Whether a counting still open holds `pair`. */
export const allowsCounting = (counting: readonly CountingPair[], pair: CountingPair) =>
  counting.some((c) => c.base === pair.base && c.perExchange === pair.perExchange);

export interface World {
  /** By lower-cased conversation id. */
  readonly conversations: ReadonlyMap<string, ConversationState>;
  /** By `${who} ${key}`. */
  readonly keys: ReadonlyMap<string, KeyRecord>;
  readonly counting: Counting;
  /**
   * How many items show each exchange's message, once a complete listing showed one: 1 for a
   * user message item, more when other items quote it. Unknown while no listing showed a text
   * sent (a service may list none; step-list.ts).
   */
  readonly echo: "unknown" | number;
  /** The order of items, once a listing showed two exchanges. */
  readonly order: "unknown" | "oldest-first" | "newest-first";
  /**
   * Whether an Idempotency-Key is shared by the plain and the stream endpoint (the spec's
   * reading: the stream "accepts the same Idempotency-Key") or scoped to each (a reading some
   * services take), once a key used on both endpoints showed which.
   */
  readonly keyScope: "unknown" | "shared" | "per-endpoint";
  /**
   * Keys whose first request had an unknown outcome, in the world where it did not take effect
   * (by key id, with that request's #n): the service may still have been running it when the
   * client sent the key again, so a retry that doubles it breaks IDEM-5.
   */
  readonly indeterminate: ReadonlyMap<string, number>;
  /**
   * Exchanges of unknown outcome that had not taken effect when the model judged them, by
   * conversation: a service may still store one later (it went on after the client dropped the
   * stream, or after a timeout), so a listing that shows one takes it in, at its end.
   */
  readonly late: ReadonlyMap<string, readonly LateExchange[]>;
  /** Shapes the spec leaves open, as this service answered them first (refused or accepted), with the #n that showed it. */
  readonly shapes: ReadonlyMap<string, { readonly accepted: boolean; readonly op: number }>;
}

export const EMPTY_WORLD: World = {
  conversations: new Map(),
  keys: new Map(),
  counting: "any",
  echo: "unknown",
  order: "unknown",
  keyScope: "unknown",
  indeterminate: new Map(),
  late: new Map(),
  shapes: new Map(),
};

/** A key's record: under the key alone (shared by both endpoints), and under its endpoint too. */
export const keyId = (who: Caller, key: string, endpoint?: Endpoint) =>
  endpoint === undefined ? `${who} ${key}` : `${who} ${endpoint} ${key}`;

export const conversationKey = (id: string) => id.toLowerCase();

export function withConversation(world: World, conversation: ConversationState): World {
  const conversations = new Map(world.conversations);
  conversations.set(conversationKey(conversation.id), conversation);
  return { ...world, conversations };
}

export function withKey(world: World, id: string, record: KeyRecord): World {
  const keys = new Map(world.keys);
  keys.set(id, record);
  return { ...world, keys };
}

/**
 * The key's record: under its endpoint, and under the key alone unless the other endpoint's
 * record stands there already. Whether an earlier request of unknown outcome ran is moot then.
 */
export function withRecordedKey(world: World, record: KeyRecord): World {
  const shared = keyId(record.who, record.key);
  const own = withKey(world, keyId(record.who, record.key, record.endpoint), record);
  const recorded = world.keys.has(shared) ? own : withKey(own, shared, record);
  if (!recorded.indeterminate.has(shared)) return recorded;
  const indeterminate = new Map(recorded.indeterminate);
  indeterminate.delete(shared);
  return { ...recorded, indeterminate };
}

/** At most this many orders of a conversation's exchanges with its late ones placed among them. */
const MAX_PLACEMENTS = 64;

/**
 * Where exchanges that arrived late may stand among those already known: anywhere after every
 * exchange whose answer had ended before the late one's request was sent, and after those the
 * last listing counted without it. The service stored it
 * at some moment after that request; a listing that lags behind its writes (or a read replica)
 * may have hidden it from listings taken meanwhile, so it need not be the latest.
 */
export function latePlacements(
  conversation: ConversationState,
  arrived: readonly ExchangeRecord[],
): ExchangeRecord[][] {
  let orders: ExchangeRecord[][] = [[...conversation.exchanges]];
  for (const exchange of arrived) {
    const next: ExchangeRecord[][] = [];
    for (const order of orders) {
      const earliest = order.reduce((after, e, i) => (e.end < exchange.at ? i + 1 : after), conversation.listed ?? 0);
      // Latest first: the reading the model held before it knew of lag stays the first tried.
      for (let at = order.length; at >= earliest && next.length < MAX_PLACEMENTS; at--)
        next.push([...order.slice(0, at), exchange, ...order.slice(at)]);
    }
    orders = next;
  }
  return orders;
}

/**
 * The worlds in which an exchange of unknown outcome that had not taken effect (`late`) did after
 * all, before now: taken out of `late`, placed among its conversation's exchanges, its key bound.
 * None when it is not waiting there (its conversation unknown, or already arrived).
 */
export function arrivedLate(world: World, op: number): World[] {
  for (const [id, waiting] of world.late) {
    const exchange = waiting.find((e) => e.op === op);
    if (exchange === undefined) continue;
    const rest = waiting.filter((e) => e !== exchange);
    const late = new Map(world.late);
    if (rest.length === 0) late.delete(id);
    else late.set(id, rest);
    const { record, ...arrived } = exchange;
    const keyed = record === undefined ? { ...world, late } : withRecordedKey({ ...world, late }, record);
    const conversation = keyed.conversations.get(id);
    if (conversation === undefined) return [keyed];
    return latePlacements(conversation, [arrived]).map((exchanges) =>
      withConversation(keyed, { ...conversation, exchanges }),
    );
  }
  return [];
}

export function withSuspect(world: World, conversationId: string, suspect: Suspect): World {
  const conversation = world.conversations.get(conversationKey(conversationId));
  if (conversation === undefined) return world;
  return withConversation(world, { ...conversation, suspects: [...conversation.suspects, suspect] });
}

/**
 * A stable text of the world, to drop duplicates (two orders that end in the same state). Which
 * operation wrote an exchange or a key's record is left out where no later answer can tell: two
 * requests with one key and payload (a retry and its original) leave the same state whichever
 * took effect, and keeping both would double the worlds with every retry.
 *
 * States are never changed, only copied with a change, and most of a world is shared with the
 * world it came from: each conversation's and key record's text is made once, and stands in the
 * world's text as its number (TextNumbers), so a world of a hundred conversations and
 * keys is a text of a few hundred characters, not of kilobytes (the search asks for fingerprints
 * at every step of every state, and most of its time went into making them).
 */
export const fingerprint = onceEach((world: World): string =>
  [
    [...world.conversations.values()].map(conversationPrint).join(","),
    [...world.keys.entries()].map(([id, k]) => keyEntryPrint(k, id)).join(","),
    JSON.stringify([
      world.counting,
      world.echo,
      world.order,
      world.keyScope,
      [...world.indeterminate],
      [...world.late].map(([id, l]) => [id, l.map((e) => printedText(e.message))]),
      [...world.shapes],
    ]),
  ].join(SECTION),
);

const SECTION = "\u0002";

/** The numbers conversation and key prints stand for in a world's text; a few megabytes at most. */
const printNumbers = new TextNumbers(20_000);

const conversationPrint = onceEach((c: ConversationState): number =>
  printNumbers.of(
    JSON.stringify([
      c.id,
      c.owner,
      c.exchanges.map((e) => [printedText(e.message), e.endpoint]),
      c.deletedBy,
      c.updatedAt?.op,
      c.listed,
      c.suspects.map((s) => [printedText(s.message), s.requirement]),
    ]),
  ),
);

/** A key record as it stands under one key id (a record stands under two: the key alone and its endpoint's). */
const keyEntryPrints = onceEach((_: KeyRecord) => new Map<string, number>());
function keyEntryPrint(k: KeyRecord, id: string): number {
  const byId = keyEntryPrints(k);
  const known = byId.get(id);
  if (known !== undefined) return known;
  const made = printNumbers.of(
    JSON.stringify([
      printedText(id),
      printedText(k.payload),
      k.result?.conversationId,
      k.result?.text === undefined ? undefined : printedText(k.result.text),
    ]),
  );
  byId.set(id, made);
  return made;
}

/**
 * A text as a fingerprint holds it: short ones as they are, long ones by their SHA-256. The
 * property sends messages of several KiB, and a world's fingerprint held every message and
 * payload of the history in full (244 KB after 140 operations), so making and comparing
 * fingerprints cost more than the model's steps. The first character tells the two forms apart.
 */
function printedText(text: string): string {
  return text.length <= 64 ? `=${text}` : digestOf(text);
}
/** Long texts' digests: a message stands in every print of its conversation made after it was sent. */
const digestOf = onceEachText(1_024, (text) => `#${createHash("sha256").update(text).digest("base64")}`);
