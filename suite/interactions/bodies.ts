/**
 * The request bodies and keys of the walk's creates: each field drawn in one of its shape classes
 * (space.ts, inputs.ts), the classes not yet covered first. A body carries at most one shape the
 * spec leaves open, so that when the service refuses it, the model knows which shape it refused.
 */
import fc from "fast-check";
import { isAnonymous, type Who } from "../model/operation.ts";
import { textKey } from "../model/items.ts";
import { openKeyForms, type OpenKeyForm } from "../model/key-forms.ts";
import {
  composeMessage,
  messageText,
  metadataOf,
  nearMiss,
  nearMissKinds,
  otherNormalisation,
  referenceText,
  shapeKey,
} from "./inputs.ts";
import type { ConversationRecord, KeyUse, Session } from "./session.ts";
import {
  KEY_SHAPES,
  MESSAGE_CLASSES,
  METADATA_CLASSES,
  NEAR_MISSES,
  NEAR_MISS_USES,
  OPEN_SHAPES,
  REFERENCE_CLASSES,
  REUSED_REFERENCE_CLASSES,
  REFERENCE_USES,
  type KeyShape,
  type MessageClass,
  type NearMiss,
  type NearMissUse,
  type ReferenceClass,
  type ReferenceUse,
  type ReusedReference,
} from "./space.ts";
import { pickWeighted } from "./weights.ts";

export interface Body {
  readonly body: Record<string, unknown>;
  readonly message: string;
  readonly tag: string;
  readonly openShape?: string;
  readonly optionalFields: boolean;
  /** Input cells covered once the service accepts it. */
  readonly acceptedCells: readonly string[];
}

const input = (name: string) => `inputs:${name}`;

/**
 * A class: one the run has not covered yet if there is one; else one not yet sent on this
 * endpoint (`@endpoint` tallies, not reported: a bug may live on one path only); else the ones
 * covered least, weighted up.
 */
function pickClass<T extends string>(
  g: fc.GeneratorValue,
  session: Session,
  prefix: string,
  classes: readonly T[],
  endpoint?: string,
  cellOf: (c: T) => string = (c) => c,
): T {
  return pickWeighted(
    g,
    classes.map((c) => {
      const count = session.covered.count(input(`${prefix}:${cellOf(c)}`));
      const onEndpoint =
        endpoint === undefined ? 1 : session.covered.count(input(`${prefix}:${cellOf(c)}@${endpoint}`));
      return { value: c, weight: count === 0 ? 1000 : onEndpoint === 0 ? 100 : 8 / (1 + 2 * count) };
    }),
  );
}

/** Kinds of text that sit side by side in one message. */
const SEGMENTS: readonly MessageClass[] = [
  "ascii",
  "two-byte",
  "three-byte",
  "four-byte",
  "combining",
  "right-to-left",
  "zero-width",
  "json-escapes",
];

/**
 * The segment kinds besides `first`: every one not yet accepted on this endpoint (a bug in one
 * kind of text shows wherever it sits in a message, so one create tries them all on its path),
 * then zero to two more, the ones least covered first.
 */
function moreSegments(
  g: fc.GeneratorValue,
  session: Session,
  first: MessageClass,
  endpoint: string | undefined,
): MessageClass[] {
  const chosen =
    endpoint === undefined
      ? []
      : SEGMENTS.filter((c) => c !== first && !session.covered.has(input(`message:${c}@${endpoint}`)));
  const count = g(() => fc.integer({ min: 0, max: 2 }));
  for (let i = 0; i < count; i++) {
    const left = SEGMENTS.filter((c) => c !== first && !chosen.includes(c));
    if (left.length === 0) break;
    chosen.push(pickClass(g, session, "message", left, endpoint));
  }
  return chosen;
}

/** The message texts a conversation took whose decomposed form differs (precomposed letters), but `distinctFrom`. */
const normalisable = (conversation: ConversationRecord | undefined, distinctFrom: string | undefined) =>
  conversation?.messages.find(
    (m) => m.normalize("NFD") !== m && m.normalize("NFC") === m && !sameText(m, distinctFrom),
  );

/**
 * Whether two messages are one text to the model (textKey): two exchanges of a race that carry
 * one text leave a listing that lacks one of them unable to say which (SSE-8 reported as RESP-2).
 */
export const sameText = (a: string, b: string | undefined) => b !== undefined && textKey(a) === textKey(b);

/**
 * A fresh body for `who`: a new conversation (`conversation` undefined) or a continuation, its
 * message, external_reference and metadata each of a drawn class.
 */
export function freshBody(
  g: fc.GeneratorValue,
  session: Session,
  who: Who,
  conversation: ConversationRecord | undefined,
  options: {
    openAllowed?: boolean;
    endpoint?: string;
    distinctFrom?: string;
    /** The external_reference's class, when the walk chose it (one used before, or one not yet sent on this endpoint). */
    reference?: ReferenceClass;
    /** The request must be refused: its text is its own, so a listing that shows it names it. */
    refused?: boolean;
  } = {},
): Body {
  const cells: string[] = [];
  // A text the conversation took before, other than the one this body must differ from. Not for a
  // request that must be refused: were its text an exchange's too, an exchange that ran twice
  // would be taken for the refused request let through (SCOPE-4 reported for a key race).
  const repeatable =
    options.refused === true ? [] : (conversation?.messages ?? []).filter((m) => !sameText(m, options.distinctFrom));
  // A body that must be accepted (openAllowed false) takes no shape a service may refuse; nor
  // does one that reuses a reference, which such a shape would leave out.
  const open = options.openAllowed !== false && options.reference === undefined;
  const classes = MESSAGE_CLASSES.filter(
    (c) => (c !== "same-text-twice" || repeatable.length > 0) && (open || !OPEN_SHAPES.has(`message:${c}`)),
  );
  const cls: MessageClass = pickClass(g, session, "message", classes, options.endpoint);
  let message: string;
  let tag: string;
  const twin = options.refused === true ? undefined : normalisable(conversation, options.distinctFrom);
  if (cls === "same-text-twice" && repeatable.length > 0) {
    message = g(() => fc.constantFrom(...repeatable));
    tag = tagOf(message);
    cells.push(input("message:same-text-twice"));
  } else if (cls === "normalisation-forms" && twin !== undefined) {
    message = otherNormalisation(twin);
    tag = tagOf(message);
    cells.push(input("message:normalisation-forms"));
  } else {
    tag = session.target.message(cls === "long" ? "long" : "m");
    // More kinds of text in the same message (moreSegments): a create covers several. The first
    // of a normalisation pair too (a create spent on it is one a stored text can go wrong in),
    // but not combining marks, which its composed form would absorb.
    let extras =
      cls === "long"
        ? []
        : moreSegments(g, session, cls, options.endpoint).filter(
            (c) => cls !== "normalisation-forms" || c !== "combining",
          );
    let texts = [cls, ...extras].map((c) => g(() => messageText(c)));
    message = composeMessage(tag, cls, texts.join(" "));
    // The pair's first text must be its own composed form, or no later text is its twin.
    if (cls === "normalisation-forms" && message.normalize("NFC") !== message) {
      extras = [];
      texts = texts.slice(0, 1);
      message = composeMessage(tag, cls, texts.join(" "));
    }
    for (const c of [cls, ...extras]) if (c !== "normalisation-forms") cells.push(input(`message:${c}`));
    if (options.endpoint !== undefined) for (const c of extras) cells.push(input(`message:${c}@${options.endpoint}`));
  }
  let openShape = cls === "long" ? "message:long" : undefined;

  const body: Record<string, unknown> = { message };
  if (conversation !== undefined) {
    body.conversation_id = conversation.id;
    cells.push(input("conversation_id:uuid"));
  } else if (g(() => fc.boolean())) {
    body.conversation_id = null;
    cells.push(input("conversation_id:null"));
  } else cells.push(input("conversation_id:absent"));

  // Beside a shape the service may refuse, nothing else it could refuse: a refusal then names its cause.
  const use: ReferenceUse = conversation === undefined ? "new" : "continue";
  const referenceCell = (cls: ReferenceClass) => (isReused(cls) ? `${cls}/${use}` : cls);
  // A fresh string to be reused later rides beside a shape the service may refuse (no service may
  // refuse a string): left out there, a long first text left a sequence's new conversations
  // without one, and seed 23000 never sent a new conversation under a reference that started
  // another, where a service that takes it for a key shows it.
  const seedsReference = options.reference === undefined && referenceToReuse(session, who, conversation);
  const reference =
    openShape !== undefined
      ? seedsReference
        ? "string"
        : "absent"
      : (options.reference ??
        (seedsReference
          ? "string"
          : pickClass(
              g,
              session,
              "external_reference",
              // A reuse with nothing to reuse would send a fresh string: drawn for its unmet cell
              // again and again, it kept the other classes (null on the stream among them) waiting.
              REFERENCE_CLASSES.filter((c) => !isReused(c) || reusable(session, c, who, conversation).length > 0),
              options.endpoint,
              referenceCell,
            )));
  const value = referenceFor(g, session, reference, who, conversation);
  if (value !== undefined) {
    body.external_reference = value.value;
    cells.push(input(`external_reference:${referenceCell(value.cls)}`));
  } else cells.push(input("external_reference:absent"));

  const metadataClasses = METADATA_CLASSES.filter(
    (c) =>
      c !== "reordered-keys" &&
      (openShape === undefined || c === "absent") &&
      (open || !OPEN_SHAPES.has(`metadata:${c}`)),
  );
  const metadata = pickClass(g, session, "metadata", metadataClasses);
  if (metadata !== "absent" && metadata !== "reordered-keys") {
    body.metadata = g(() => metadataOf(metadata));
    if (OPEN_SHAPES.has(`metadata:${metadata}`)) {
      openShape = `metadata:${metadata}`;
      if (value !== undefined && !seedsReference) {
        delete body.external_reference;
        cells.splice(
          cells.indexOf(input(`external_reference:${referenceCell(value.cls)}`)),
          1,
          input("external_reference:absent"),
        );
      }
    }
  }
  cells.push(input(`metadata:${metadata}`));
  const optionalFields = "external_reference" in body || "metadata" in body;
  // The message's and the reference's classes tallied on this endpoint too: a request schema or a
  // column may be wrong on one path only. (Not metadata: a service may refuse its open shapes, and
  // a shape refused is never tallied, so it would be drawn again and again.)
  if (options.endpoint !== undefined) {
    const reference = cells.find((c) => c.startsWith(input("external_reference:")));
    for (const cell of [input(`message:${cls}`), ...(reference === undefined ? [] : [reference])])
      cells.push(`${cell}@${options.endpoint}`);
  }
  return {
    body,
    message,
    tag,
    ...(openShape === undefined ? {} : { openShape }),
    optionalFields,
    acceptedCells: cells,
  };
}

/**
 * Whether a create should carry a reference of its own, so that a later one can carry it again:
 * - a caller's first create (a caller with a key), while a reference is still to be reused across scopes: drawn at
 *   random, the other identities seldom sent one, and the owner of a conversation could not
 *   continue it with another scope's reference (seed 1314192774: not in 30 sequences);
 * - a new conversation, while no new conversation has carried one used before, and its caller has
 *   no living conversation a reference started (where a service that takes the reference for a
 *   natural key continues it); drawn at random, few new conversations had one.
 */
function referenceToReuse(session: Session, who: Who, conversation: ConversationRecord | undefined): boolean {
  const acrossScopes = REFERENCE_USES.some(
    (use) => !session.covered.has(input(`external_reference:reused-in-two-scopes/${use}`)),
  );
  if (acrossScopes && !isAnonymous(who) && !session.references.some((r) => r.who === who)) return true;
  if (conversation !== undefined || session.covered.has(input("external_reference:reused-in-two-conversations/new")))
    return false;
  return !session.references.some((r) => r.who === who && startedLiving(session, r));
}

/** Whether a reference started a conversation that still lives: where a service that keys conversations by their reference would find it. */
export const startedLiving = (session: Session, reference: Session["references"][number]): boolean =>
  reference.started && session.conversation(reference.conversationId)?.deleted === false;

const isReused = (cls: ReferenceClass): cls is ReusedReference =>
  (REUSED_REFERENCE_CLASSES as readonly string[]).includes(cls);

/**
 * The references a request may carry again as `cls`: its caller's own from another conversation
 * (for a new conversation, one that started a conversation still living: one first sent on a turn
 * would not show a service that keys conversations by their reference, and a deleted one is no
 * longer there to be found), or another scope's.
 */
function reusable(
  session: Session,
  cls: ReusedReference,
  who: Who,
  conversation: ConversationRecord | undefined,
): Session["references"] {
  if (cls === "reused-in-two-scopes") return session.references.filter((r) => r.who !== who);
  const id = conversation?.id.toLowerCase();
  const earlier = session.references.filter((r) => r.who === who && r.conversationId?.toLowerCase() !== id);
  return conversation !== undefined ? earlier : earlier.filter((r) => startedLiving(session, r));
}

function referenceFor(
  g: fc.GeneratorValue,
  session: Session,
  cls: (typeof REFERENCE_CLASSES)[number],
  who: Who,
  conversation: ConversationRecord | undefined,
) {
  if (cls === "null") return { value: null, cls } as const;
  if (isReused(cls)) {
    const from = reusable(session, cls, who, conversation);
    if (from.length > 0) return { value: g(() => fc.constantFrom(...from.map((r) => r.value))), cls } as const;
  }
  if (cls === "absent") return undefined;
  return { value: `${session.target.idempotencyKey("ref")}:${g(() => referenceText)}`, cls: "string" } as const;
}

/**
 * A fresh key for a request that starts a conversation or continues one: of a drawn shape, or
 * (one time in two, once the caller has keys) one small step from one of its earlier keys, so
 * that every create also tries whether the service tells near keys apart (case folded by a
 * collation, keys cut to a column's width).
 */
export function freshKey(
  g: fc.GeneratorValue,
  session: Session,
  who: Who,
  starts: "new" | "continue",
  endpoint?: string,
): { readonly key: string; readonly cells: readonly string[] } {
  // Keys of a form the service refused (the spec names none) would only be refused again, near-misses of them too.
  const keptOff = (key: string) => openKeyForms(key).some((form) => session.refusedKeyForms.has(form));
  const earlier = session.keys.filter((k) => k.who === who && !keptOff(k.key));
  // A near-miss of a key of the same use when there is one: keys of new conversations and of turns are often kept apart.
  const sameUse = earlier.filter((k) => (typeof k.body.conversation_id === "string") === (starts === "continue"));
  if (earlier.length > 0 && g(() => fc.boolean()))
    return nearMissKey(
      g,
      session,
      longFirst(g, sameUse.length > 0 ? sameUse : earlier, endpoint),
      `${starts}/other-body`,
      endpoint,
    );
  // A column too short for a key shows only with keys longer than it, and only a near-miss of a
  // long key tries it (a prefix needs one, and every near-miss changes the key's end). Keys of new
  // conversations are few, and drawn among four shapes they were seldom long: while the caller has
  // no long one whose request took effect (a near-miss with its body repeats an exchange that ran)
  // and whose prefix is unsent, a new conversation's key is long. Turns are many and meet long keys
  // by their draw; while a prefix cell of theirs is unmet and no long key is free, one time in two.
  // (Every turn key made long first took near-misses from the case-changed ones.)
  const sent = sentKeys(session);
  const longFree = (keys: readonly KeyUse[]) =>
    keys.some((k) => k.status === "completed" && canMissBy(k.key, "prefix", sent));
  const prefixPending = NEAR_MISS_USES.some(
    (use) => use.startsWith(`${starts}/`) && !session.covered.has(input(`idempotency-key:near-miss:prefix/${use}`)),
  );
  const shapes = KEY_SHAPES.filter((shape) => {
    const form = KEY_SHAPE_FORM[shape];
    return form === undefined || !session.refusedKeyForms.has(form);
  });
  const longWanted =
    shapes.includes("long-token") &&
    (starts === "new" ? !longFree(sameUse) : prefixPending && !longFree(earlier) && g(() => fc.boolean()));
  const shape = longWanted ? "long-token" : pickClass(g, session, "idempotency-key", shapes);
  return {
    key: g(() => shapeKey(session.target.idempotencyKey("k"), shape)),
    cells: [input(`idempotency-key:${shape}`)],
  };
}

/** The form of each key shape that a service may refuse (openKeyForms), if any. */
const KEY_SHAPE_FORM: Record<KeyShape, OpenKeyForm | undefined> = {
  uuid: undefined,
  "long-token": "long",
  "mixed-case": undefined,
  punctuation: "punctuation",
};

/**
 * An earlier key to miss by a little: long ones first (a near-miss changes a key's end, so a long
 * key's near-miss tries the comparison and a column that cuts keys at once), and those sent to
 * `endpoint`.
 */
export function longFirst(g: fc.GeneratorValue, keys: readonly KeyUse[], endpoint?: string): KeyUse {
  // A key table is often one per endpoint: a near-miss on the endpoint the earlier key was sent to meets the same one.
  const weight = (k: KeyUse) =>
    (k.key.length > LONG_KEY_CHARS ? 3 : 1) * (endpoint !== undefined && k.endpoint === endpoint ? 3 : 1);
  return pickWeighted(
    g,
    keys.map((k) => ({ value: k, weight: weight(k) })),
  );
}

/** A key one small step from an earlier one (a prefix only of a key long enough to have been cut), for the use named. */
export function nearMissKey(
  g: fc.GeneratorValue,
  session: Session,
  earlier: KeyUse,
  use: NearMissUse,
  endpoint?: string,
  wanted?: NearMiss,
): { readonly key: string; readonly cells: readonly string[] } {
  // A near-miss is a key never sent: one that lands on a key used before (a case flip of a flipped
  // key, a suffix on a suffixed one) would be a reuse, and the request's experiment lost to a 409.
  const used = sentKeys(session);
  const hows = NEAR_MISSES.filter((n) => canMissBy(earlier.key, n, used));
  if (hows.length === 0) {
    const key = unusedKey(used, `${earlier.key}-`);
    session.nearKeysDrawn.add(key);
    return { key, cells: [] };
  }
  const how =
    wanted !== undefined && hows.includes(wanted)
      ? wanted
      : pickClass(g, session, "idempotency-key:near-miss", hows, endpoint, (c) => `${c}/${use}`);
  const key = nearMiss(earlier.key, how);
  session.nearKeysDrawn.add(key);
  const cells = nearMissKinds(earlier.key, key).flatMap((kind) => {
    const cell = input(`idempotency-key:near-miss:${kind}/${use}`);
    return endpoint === undefined ? [cell] : [cell, `${cell}@${endpoint}`];
  });
  return { key, cells };
}

/** Longer than this, a key may have been cut by a column: only such a key has a prefix worth sending. */
export const LONG_KEY_CHARS = 40;

/**
 * Whether `key` can still give a near-miss of this kind: one never sent (a near-miss that lands on
 * a key used before would be a reuse), and a prefix only of a key long enough to have been cut.
 */
export function canMissBy(key: string, how: NearMiss, sent: ReadonlySet<string>): boolean {
  return (how !== "prefix" || key.length > LONG_KEY_CHARS) && !sent.has(nearMiss(key, how));
}

/** Every key the sequence sent or drew as a near-miss, to tell a near-miss from a key used before. */
export const sentKeys = (session: Session): ReadonlySet<string> =>
  new Set([...session.keys.map((k) => k.key), ...session.nearKeysDrawn]);

/** `stem` and the first number that makes a key no request of the run sent. */
function unusedKey(used: ReadonlySet<string>, stem: string): string {
  for (let n = 2; ; n++) if (!used.has(`${stem}${n}`)) return `${stem}${n}`;
}

/** The run-scoped tag of a message: its first word. */
export const tagOf = (message: string) => message.trim().split(/\s/)[0] ?? message;
