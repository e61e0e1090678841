/**
 * The space the interaction property walks, as small named dimensions, each listed once here
 * (DESIGN, "Exploring the whole space"). A cell is one combination a request can realise; the
 * tables list only the combinations the model can reach, and say which of them only a create
 * reaches (what a paid service charges for). The walker (walk.ts) weights its proposals towards
 * cells not yet covered; the report (coverage.ts) counts them.
 */
import type { CellTable } from "./coverage.ts";

/** The conversation a request names, as the client knows it when it sends the request. */
export const CONVERSATION_STATES = ["none", "live", "in-flight", "deleted", "unknown"] as const;
export type ConversationState = (typeof CONVERSATION_STATES)[number];

/** The Idempotency-Key a request carries, as the client knows it. */
export const KEY_STATES = [
  "fresh",
  "near-miss",
  "of-another-scope",
  "completed",
  "completed-then-continued",
  "in-flight",
  "unknown-outcome",
  "of-deleted",
] as const;
export type KeyState = (typeof KEY_STATES)[number];

export const OPERATIONS = ["create", "continue", "replay", "reuse", "list", "delete"] as const;
export type Operation = (typeof OPERATIONS)[number];

/** Which page parameters a listing sends. */
export const QUERY_SHAPES = ["no-parameters", "page", "page-size", "both"] as const;
export type QueryShape = (typeof QUERY_SHAPES)[number];

/**
 * Who sends the request, seen from the conversation's owner: the owner itself ("own"), another
 * agent under the same key, the same agent under another key, no key, a key nobody issued.
 */
export const RELATIONS = ["own", "other-agent", "other-key", "no-key", "unknown-key"] as const;
export type Relation = (typeof RELATIONS)[number];

export type EndpointName = "plain" | "stream";

export interface TransitionCell {
  readonly operation: Operation;
  readonly conversation: ConversationState;
  readonly key: KeyState | "n/a";
  /** An endpoint for creates, a query shape for listings, "n/a" for deletes. */
  readonly variant: EndpointName | QueryShape | "n/a";
  readonly relation: Relation;
}

export const transitionName = (c: TransitionCell): string =>
  [c.conversation, c.key, c.operation, c.variant, c.relation].join("/");

const ENDPOINTS: readonly EndpointName[] = ["plain", "stream"];
const FOREIGN: readonly Relation[] = ["other-agent", "other-key", "no-key", "unknown-key"];

/** Every transition the model can reach, with whether a conforming service charges a create for the request itself. */
function reachableTransitions(): { cell: TransitionCell; create: boolean }[] {
  const cells: { cell: TransitionCell; create: boolean }[] = [];
  const add = (cell: TransitionCell, create: boolean) => cells.push({ cell, create });
  for (const variant of ENDPOINTS) {
    // A new conversation: by its owner with a fresh key, a near-miss of an earlier one or a key
    // another scope used; refused without a valid key.
    for (const key of ["fresh", "near-miss", "of-another-scope"] as const)
      add({ operation: "create", conversation: "none", key, variant, relation: "own" }, true);
    for (const relation of ["no-key", "unknown-key"] as const)
      add({ operation: "create", conversation: "none", key: "fresh", variant, relation }, false);
    // Continuing: the live conversation by anyone, one with an exchange in flight, a deleted or unknown one.
    for (const key of ["fresh", "near-miss"] as const)
      add({ operation: "continue", conversation: "live", key, variant, relation: "own" }, true);
    for (const relation of FOREIGN)
      add({ operation: "continue", conversation: "live", key: "fresh", variant, relation }, false);
    add({ operation: "continue", conversation: "in-flight", key: "fresh", variant, relation: "own" }, true);
    for (const relation of ["other-agent", "other-key"] as const)
      add({ operation: "continue", conversation: "in-flight", key: "fresh", variant, relation }, false);
    add({ operation: "continue", conversation: "deleted", key: "fresh", variant, relation: "own" }, false);
    add({ operation: "continue", conversation: "unknown", key: "fresh", variant, relation: "own" }, false);
    // Replays and reuses of a key, by the state of the key's first request (finished, and then
    // followed by later turns: a replay must still return the first result, not the latest).
    for (const key of [
      "completed",
      "completed-then-continued",
      "in-flight",
      "unknown-outcome",
      "of-deleted",
    ] as const) {
      add(
        { operation: "replay", conversation: key === "of-deleted" ? "deleted" : "live", key, variant, relation: "own" },
        key === "unknown-outcome",
      );
      add(
        { operation: "reuse", conversation: key === "of-deleted" ? "deleted" : "live", key, variant, relation: "own" },
        false,
      );
    }
  }
  for (const conversation of ["live", "in-flight", "deleted", "unknown"] as const) {
    for (const variant of QUERY_SHAPES)
      add({ operation: "list", conversation, key: "n/a", variant, relation: "own" }, false);
    add({ operation: "delete", conversation, key: "n/a", variant: "n/a", relation: "own" }, false);
  }
  for (const relation of FOREIGN) {
    add({ operation: "list", conversation: "live", key: "n/a", variant: "no-parameters", relation }, false);
    add({ operation: "delete", conversation: "live", key: "n/a", variant: "n/a", relation }, false);
  }
  return cells;
}

/**
 * Every transition the model can reach; one also needs a create when its state does: an
 * exchange in flight is one the run pays for, whatever the request that meets it costs.
 */
export const TRANSITIONS = reachableTransitions().map(({ cell, create }) => ({
  cell,
  create: create || cell.conversation === "in-flight" || cell.key === "in-flight",
}));
const CREATE_TRANSITIONS = new Set(TRANSITIONS.filter((t) => t.create).map((t) => transitionName(t.cell)));
/** Whether only a create (what a paid service charges for) reaches the transition. */
export const transitionNeedsCreate = (name: string) => CREATE_TRANSITIONS.has(name);

/** The races whose arrangement is a cell of its own: which request was held open, and when the other was sent. */
const ARRANGED_CLASSES = ["two-exchanges", "one-key-both-endpoints", "replay-in-flight-original"] as const;
const ARRANGEMENTS = [
  "held-plain",
  "held-stream-at-once",
  "held-stream-after-created",
  "held-stream-after-delta",
  "held-stream-after-completed",
] as const;

/** A race's arrangement cell: its class, the endpoint of the request held open and, for a stream, when the other was sent. */
export function arrangementOf(ordering: string, heldEndpoint: "plain" | "stream", timing: string): string | undefined {
  const cell = `${ordering}/${heldEndpoint === "plain" ? "held-plain" : `held-stream-${timing}`}`;
  return (ORDERINGS as readonly string[]).includes(cell) ? cell : undefined;
}

/**
 * Overlap classes, each with its two orders as the model linearised them: two exchanges on one
 * conversation; one key on both endpoints; a delete and an exchange, by where the exchange was
 * when the delete was sent (before response.created, after it, after a delta, after completion); a replay and its original still in flight. Then how the races of
 * the first, second and last class were arranged: a bug that needs the second request to land
 * while a stream thinks, or after its first delta, shows only in that arrangement.
 */
export const ORDERINGS = [
  ...ARRANGED_CLASSES.flatMap((cls) => ARRANGEMENTS.map((arrangement) => `${cls}/${arrangement}` as const)),
  "two-exchanges/sent-first-first",
  "two-exchanges/sent-second-first",
  "one-key-both-endpoints/plain-first",
  "one-key-both-endpoints/stream-first",
  "delete-exchange-before-created/exchange-first",
  "delete-exchange-before-created/delete-first",
  "delete-exchange-after-created/exchange-first",
  "delete-exchange-after-created/delete-first",
  "delete-exchange-after-delta/exchange-first",
  "delete-exchange-after-delta/delete-first",
  "delete-exchange-after-completed/exchange-first",
  "delete-exchange-after-completed/delete-first",
  "replay-in-flight-original/original-first",
  "replay-in-flight-original/replay-first",
] as const;
export type Ordering = (typeof ORDERINGS)[number];

/** Shape classes of every request field, header and parameter (the spec's Resources table and the catalog). */
export const MESSAGE_CLASSES = [
  "ascii",
  "two-byte",
  "three-byte",
  "four-byte",
  "combining",
  "right-to-left",
  "zero-width",
  "json-escapes",
  "surrounding-spaces",
  "long",
  "same-text-twice",
  "normalisation-forms",
] as const;
export type MessageClass = (typeof MESSAGE_CLASSES)[number];

export const REFERENCE_CLASSES = [
  "absent",
  "null",
  "string",
  "reused-in-two-conversations",
  "reused-in-two-scopes",
] as const;
export type ReferenceClass = (typeof REFERENCE_CLASSES)[number];
/** The reference classes a body carries of its own, tallied per endpoint: owed on one once the other accepted it. */
export const OWN_REFERENCE_CLASSES = ["null", "string", "absent"] as const satisfies readonly ReferenceClass[];
/**
 * A reused reference is a cell per request that carries it again: one that starts a conversation
 * (a service that takes the reference for a natural key continues the earlier one) and a continuation.
 */
export const REUSED_REFERENCE_CLASSES = ["reused-in-two-conversations", "reused-in-two-scopes"] as const;
export type ReusedReference = (typeof REUSED_REFERENCE_CLASSES)[number];
export const REFERENCE_USES = ["new", "continue"] as const;
export type ReferenceUse = (typeof REFERENCE_USES)[number];

export const METADATA_CLASSES = [
  "absent",
  "empty",
  "flat",
  "nested",
  "arrays",
  "numbers",
  "nulls",
  "reordered-keys",
] as const;
export type MetadataClass = (typeof METADATA_CLASSES)[number];

export const CONVERSATION_ID_CLASSES = ["absent", "null", "uuid"] as const;

export const KEY_SHAPES = ["uuid", "long-token", "mixed-case", "punctuation"] as const;
export type KeyShape = (typeof KEY_SHAPES)[number];
export const NEAR_MISSES = ["one-character-changed", "case-changed", "prefix", "suffix"] as const;
export type NearMiss = (typeof NEAR_MISSES)[number];
/**
 * A near-miss key is a cell per what it is sent with: a new conversation or a continuation, and
 * the earlier key's body (a service that confuses the keys replays) or another (it answers 409).
 * Bugs of key lookup live in one table each: a collation on the turns, a column on new conversations.
 */
export const NEAR_MISS_USES = ["new/same-body", "new/other-body", "continue/same-body", "continue/other-body"] as const;
export type NearMissUse = (typeof NEAR_MISS_USES)[number];

/** The field a reused key's other payload differs in, on each endpoint: a fingerprint that skips one misses it. */
export const PAYLOAD_CHANGES = ["message", "metadata", "external_reference", "conversation_id"] as const;
export type PayloadChange = (typeof PAYLOAD_CHANGES)[number];

export const PAGE_CLASSES = [
  "page:first",
  "page:last",
  "page:past-the-end",
  "page_size:1",
  "page_size:between",
  "page_size:100",
] as const;

export const INPUTS: readonly string[] = [
  ...MESSAGE_CLASSES.map((c) => `message:${c}`),
  ...REFERENCE_CLASSES.flatMap((c) =>
    (REUSED_REFERENCE_CLASSES as readonly string[]).includes(c)
      ? REFERENCE_USES.map((use) => `external_reference:${c}/${use}`)
      : [`external_reference:${c}`],
  ),
  ...METADATA_CLASSES.map((c) => `metadata:${c}`),
  ...CONVERSATION_ID_CLASSES.map((c) => `conversation_id:${c}`),
  ...KEY_SHAPES.map((c) => `idempotency-key:${c}`),
  ...NEAR_MISSES.flatMap((c) => NEAR_MISS_USES.map((use) => `idempotency-key:near-miss:${c}/${use}`)),
  ...PAYLOAD_CHANGES.flatMap((c) => [`payload-change:${c}:plain`, `payload-change:${c}:stream`]),
  ...PAGE_CLASSES,
];

/** What the spec lets a service refuse consistently (it is silent on limits and validation): the rest it must accept. */
export const OPEN_SHAPES: ReadonlySet<string> = new Set([
  "message:long",
  "metadata:nested",
  "metadata:arrays",
  "metadata:numbers",
  "metadata:nulls",
]);

/** The client behaviours the spec names (client rules 1 and 2): drops, retries under the same key, cancellation. */
export const DROP_POINTS = ["after-created", "after-delta", "before-completion"] as const;
export type DropPoint = (typeof DROP_POINTS)[number];

export const CLIENT_BEHAVIOURS = [
  ...DROP_POINTS.map((p) => `drop:${p}`),
  "retry-soon:same-endpoint",
  "retry-soon:other-endpoint",
  "retry-late:same-endpoint",
  "retry-late:other-endpoint",
  "cancel-without-retry",
  "replayed-after-retry",
] as const;

export const CELLS: CellTable = {
  transitions: TRANSITIONS.map((t) => transitionName(t.cell)),
  orderings: ORDERINGS,
  inputs: INPUTS,
  client: CLIENT_BEHAVIOURS,
};
