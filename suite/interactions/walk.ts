/**
 * The walk: at each step, the commands the sequence's state enables (every operation on every
 * conversation and key it knows, by every identity, alone or in a race), each weighted towards
 * the cells (space.ts) the run has not covered yet; creates, what a paid service charges for, go
 * only where they reach something new or the budget has room. fast-check draws the choice and
 * every input, so a seed reproduces the walk and nothing is scripted. As quickcheck-state-machine
 * draws each command from a generator of the model's state, and Hypothesis' target() climbs
 * towards rare states, the walk reads the state and the coverage before every draw. What a
 * sequence owes (owed.ts) takes its creates once due, so that no bug class that only a create of
 * its own tries is left to the luck of a weighted draw.
 */
import fc from "fast-check";
import { isAnonymous, type Endpoint, type Who } from "../model/operation.ts";
import {
  canMissBy,
  freshBody,
  freshKey,
  LONG_KEY_CHARS,
  longFirst,
  nearMissKey,
  sameText,
  sentKeys,
  startedLiving,
} from "./bodies.ts";
import {
  LANES,
  type Command,
  type CreateRequest,
  type DeleteRequest,
  type ListRequest,
  type Request,
  type Timing,
} from "./commands.ts";
import { nearMiss, nearMissKinds, reorderKeys } from "./inputs.ts";
import {
  createOverdue,
  dropOverdue,
  misses,
  newNearMissMet,
  OVERDUE,
  raceOverdue,
  turnNearMissUnmet,
  unmetStill,
} from "./owed.ts";
import type { ConversationRecord, KeyUse, Session } from "./session.ts";
import {
  arrangementOf,
  DROP_POINTS,
  INPUTS,
  MESSAGE_CLASSES,
  NEAR_MISSES,
  NEAR_MISS_USES,
  OPEN_SHAPES,
  OWN_REFERENCE_CLASSES,
  PAYLOAD_CHANGES,
  TRANSITIONS,
  transitionName,
  transitionNeedsCreate,
  type ConversationState,
  type DropPoint,
  type KeyState,
  type NearMiss,
  type NearMissUse,
  type Operation,
  type QueryShape,
  type Relation,
  type ReferenceClass,
  type ReusedReference,
} from "./space.ts";
import { pickOne, pickWeighted, type Weighted } from "./weights.ts";

/** A command the state enables, before its inputs are drawn. */
interface Proposal {
  /** Cells it may cover: what its weight counts. */
  readonly cells: readonly string[];
  /** Creates a conforming service may charge for it. */
  readonly charged: number;
  /** Creates the run's budget holds while it runs, when more than it charges (requests a conforming service refuses). */
  readonly holds?: number;
  /** It deletes a live conversation of the sequence. */
  readonly deletes?: boolean;
  /** It starts a conversation by the owner the walk needs next (newOwner). */
  readonly startsNeededOwner?: true;
  readonly build: (g: fc.GeneratorValue) => Command | undefined;
}

const ENDPOINTS: readonly Endpoint[] = ["plain", "stream"];
const transition = (
  operation: Operation,
  conversation: ConversationState,
  key: KeyState | "n/a",
  variant: string,
  relation: Relation,
) => `transitions:${transitionName({ operation, conversation, key, variant: variant as never, relation })}`;

/** Who sends a request, seen from a conversation's owner. */
export function relationOf(caller: Who, owner: Who): Relation {
  if (caller === owner) return "own";
  if (caller === "noKey") return "no-key";
  if (caller === "unknownKey") return "unknown-key";
  // The other agent is reached with the primary key; the other key names the primary agent.
  const agentOf = (who: Who) => (who === "otherAgent" ? "other" : "primary");
  return agentOf(caller) !== agentOf(owner) ? "other-agent" : "other-key";
}

/** The identities this target has: the other agent and the other key are optional. */
function callers(session: Session): Who[] {
  return (["primary", "otherAgent", "otherKey"] as const).filter((who) => session.identity(who) !== undefined);
}

/**
 * Who starts a new conversation: the primary identity while its agent has none that is live, else
 * any. Only the primary agent's conversations meet every relation (a request without a valid key names the
 * primary agent; no identity is the other key of the other agent's): a sequence whose live
 * conversations were all the other agent's left a third of its free transitions unmet.
 */
function newOwner(g: fc.GeneratorValue, session: Session): Who {
  return live(session).some(ofPrimaryAgent) ? pickOne(g, callers(session)) : "primary";
}

/** An identity standing in the given relation to the owner, if the target has one. */
function callerIn(session: Session, owner: Who, relation: Relation): Who | undefined {
  // Without a valid key, a request names the primary agent: it meets the owner's conversation only there.
  if (relation === "no-key" || relation === "unknown-key")
    return owner === "otherAgent" ? undefined : relation === "no-key" ? "noKey" : "unknownKey";
  return callers(session).find((who) => relationOf(who, owner) === relation);
}

/** Input cells any fresh create may cover (the rest need an earlier text, key or reference). */
const CREATE_INPUTS = INPUTS.filter((cell) =>
  /^(message|external_reference|metadata|idempotency-key|conversation_id):/.test(cell),
)
  .filter((cell) => !/same-text-twice|normalisation-forms|reordered-keys|near-miss|reused-in-two/.test(cell))
  .map((cell) => `inputs:${cell}`);

/**
 * The input cells one more create could still cover, one per field: what makes it worth its cost.
 * A body that must be accepted (a race's, whose exchanges must run) takes no shape a service may
 * refuse: offered one, it would count as tried for a shape it never sends, until the walk gave up on it.
 */
const uncoveredInputs = (session: Session, accepted = false) => {
  const byField = new Map<string, string>();
  for (const cell of CREATE_INPUTS) {
    const field = cell.split(":")[1] ?? "";
    if (accepted && OPEN_SHAPES.has(cell.slice("inputs:".length))) continue;
    if (!session.covered.has(cell) && !byField.has(field)) byField.set(field, cell);
  }
  return [...byField.values()];
};

/**
 * A message shape the run met, but not yet on this endpoint (its `@endpoint` tally): a column or
 * a request schema may be wrong on one path only (a stream's storage that cuts long texts). Only
 * a create of its own takes the shapes a service may refuse, so its pull goes there.
 */
const unmetHere = (session: Session, endpoint: Endpoint): string[] => {
  const cls = LONG_FIRST.find(
    (c) =>
      CREATE_INPUTS.includes(`inputs:message:${c}`) &&
      session.covered.has(`inputs:message:${c}`) &&
      !session.covered.has(`inputs:message:${c}@${endpoint}`),
  );
  return cls === undefined ? [] : [`inputs:message:${cls}@${endpoint}`];
};

/**
 * A class of external_reference the service accepted on one endpoint and not yet on this one: a
 * request schema may be wrong on one path only (a stream's that declares the field a string, not
 * nullable). A body draws its reference's class among five, and a sequence that spent its stream
 * creates on races and near keys (each repeating an earlier body, or seeding a reference to reuse)
 * sent no null to the stream in some runs of the full kill rate (seeds 32008 and 38003).
 */
const referenceUnmetHere = (session: Session, endpoint: Endpoint): ReferenceClass | undefined =>
  OWN_REFERENCE_CLASSES.find(
    (c) =>
      session.covered.has(`inputs:external_reference:${c}`) &&
      !session.covered.has(`inputs:external_reference:${c}@${endpoint}`),
  );

/** The kinds of text, a long one first: the others also ride on any create's text (moreSegments), a long one never. */
const LONG_FIRST = [...MESSAGE_CLASSES.filter((c) => c === "long"), ...MESSAGE_CLASSES.filter((c) => c !== "long")];

const live = (session: Session) => session.conversations.filter((c) => !c.deleted);
const deleted = (session: Session) => session.conversations.filter((c) => c.deleted);

/**
 * The free transitions that only a live conversation of the primary agent reaches: a request
 * without a valid key names the primary agent, and no identity is the other key of the other
 * agent's (callerIn).
 */
const PRIMARY_AGENT_CELLS = TRANSITIONS.filter(
  (t) =>
    !t.create && t.cell.conversation === "live" && ["no-key", "unknown-key", "other-key"].includes(t.cell.relation),
).map((t) => `transitions:${transitionName(t.cell)}`);

const ofPrimaryAgent = (conversation: ConversationRecord) => conversation.owner !== "otherAgent";

/** Whether a free request only a conversation of the primary agent meets is still to be sent. */
const primaryAgentCellsWait = (session: Session) => PRIMARY_AGENT_CELLS.some((cell) => unmetStill(session, cell));

/**
 * Whether the walk needs a live conversation of the primary agent and has none: a sequence whose
 * last one went in a delete race spent its remaining creates elsewhere and never sent a stream
 * without a key to a live conversation (a stream endpoint that authenticates by the conversation
 * it names went unseen).
 */
const primaryAgentWanted = (session: Session) => !live(session).some(ofPrimaryAgent) && primaryAgentCellsWait(session);

function keyState(session: Session, key: KeyUse): KeyState | undefined {
  if (key.status === "unknown-outcome") return "unknown-outcome";
  if (key.status !== "completed") return undefined;
  const conversation = session.conversation(key.conversationId);
  if (conversation?.deleted === true) return "of-deleted";
  return conversation !== undefined && continuedSince(conversation, key) ? "completed-then-continued" : "completed";
}

/** Whether the conversation took an exchange after the key's: its replay must not answer the latest one. */
function continuedSince(conversation: ConversationRecord, key: KeyUse): boolean {
  const at = conversation.messages.lastIndexOf(key.message);
  return at >= 0 && at < conversation.messages.length - 1;
}

/** Everything the state enables now. */
function proposals(session: Session): Proposal[] {
  const out: Proposal[] = [];
  const inputs = uncoveredInputs(session);
  const conversations = live(session);

  for (const endpoint of ENDPOINTS) {
    // New conversations, by each identity the target has.
    out.push({
      cells: [transition("create", "none", "fresh", endpoint, "own"), ...inputs, ...unmetHere(session, endpoint)],
      charged: 1,
      startsNeededOwner: true,
      build: (g) => one(g, createNew(g, session, newOwner(g, session), endpoint)),
    });
    // A new conversation carrying a reference used before, by an identity that has one to reuse.
    for (const reuse of referenceReuses(session, undefined)) {
      out.push({
        cells: [transition("create", "none", "fresh", endpoint, "own"), reuse.cell],
        charged: 1,
        build: (g) => one(g, createNew(g, session, pickOne(g, reuse.callers), endpoint, undefined, reuse.cls)),
      });
    }
    // A reference class the service accepted on the other endpoint, not yet on this one: on a turn
    // of a live conversation when there is one (a new conversation instead took the turns that
    // replays after later turns need: replay-answers-latest-turn fell to 18 of 20 runs from 38000).
    const unmetReference = referenceUnmetHere(session, endpoint);
    if (unmetReference !== undefined) {
      const cell = `inputs:external_reference:${unmetReference}@${endpoint}`;
      out.push(
        conversations.length > 0
          ? {
              cells: [transition("continue", "live", "fresh", endpoint, "own"), cell],
              charged: 1,
              build: (g) => {
                const conversation = pickOne(g, conversations);
                const options = { reference: unmetReference };
                return one(g, continuation(g, session, conversation, conversation.owner, endpoint, options));
              },
            }
          : {
              cells: [transition("create", "none", "fresh", endpoint, "own"), cell],
              charged: 1,
              build: (g) => one(g, createNew(g, session, newOwner(g, session), endpoint, undefined, unmetReference)),
            },
      );
    }
    const opener = acrossScopesOpeners(session);
    if (opener.length > 0) {
      out.push({
        cells: [transition("create", "none", "fresh", endpoint, "own"), ACROSS_SCOPES_CONTINUE],
        charged: 1,
        build: (g) => one(g, createNew(g, session, pickOne(g, opener), endpoint, undefined, "reused-in-two-scopes")),
      });
    }
    for (const who of ["noKey", "unknownKey"] as const) {
      out.push({
        cells: [transition("create", "none", "fresh", endpoint, relationOf(who, "primary"))],
        charged: 0,
        holds: 1,
        build: (g) => one(g, createNew(g, session, who, endpoint)),
      });
    }
    const ownKeys = session.keys.filter(
      (k) => k.status === "completed" && k.who === "primary" && typeof k.body.conversation_id !== "string",
    );
    if (ownKeys.length > 0) out.push(...nearMissProposals(session, ownKeys, endpoint, "new"));
    const foreignKeys = session.keys.filter((k) => k.who !== "primary" && !isAnonymous(k.who));
    if (foreignKeys.length > 0) {
      out.push({
        cells: [transition("create", "none", "of-another-scope", endpoint, "own")],
        charged: 1,
        build: (g) => one(g, foreignKeyCreate(g, session, pickOne(g, foreignKeys), endpoint)),
      });
    }
    // Continuing: the live conversations by anyone, the deleted ones and an unknown id by their owner.
    for (const conversation of conversations) {
      out.push({
        cells: [
          transition("continue", "live", "fresh", endpoint, "own"),
          ...inputs,
          ...unmetHere(session, endpoint),
          ...twiceCells(session, conversation),
        ],
        charged: 1,
        build: (g) => one(g, continuation(g, session, conversation, conversation.owner, endpoint)),
      });
      for (const reuse of referenceReuses(session, conversation)) {
        out.push({
          cells: [transition("continue", "live", "fresh", endpoint, "own"), reuse.cell],
          charged: 1,
          build: (g) =>
            one(g, continuation(g, session, conversation, conversation.owner, endpoint, { reference: reuse.cls })),
        });
      }
      for (const relation of ["other-agent", "other-key", "no-key", "unknown-key"] as const) {
        const who = callerIn(session, conversation.owner, relation);
        if (who === undefined) continue;
        // Mostly refused (another identity may be answered with a conversation of its own): weighed as free, it holds one while it runs.
        out.push({
          cells: [transition("continue", "live", "fresh", endpoint, relation)],
          charged: 0,
          holds: 1,
          build: (g) => one(g, continuation(g, session, conversation, who, endpoint)),
        });
      }
      const nearMisses = turnKeys(session, conversation);
      if (nearMisses.length > 0) out.push(...nearMissProposals(session, nearMisses, endpoint, "continue"));
    }
    for (const conversation of deleted(session)) {
      out.push({
        cells: [transition("continue", "deleted", "fresh", endpoint, "own")],
        charged: 0,
        holds: 1,
        build: (g) => one(g, continuation(g, session, conversation, conversation.owner, endpoint)),
      });
    }
    out.push({
      cells: [transition("continue", "unknown", "fresh", endpoint, "own")],
      charged: 0,
      holds: 1,
      build: (g) => one(g, continuation(g, session, unknownConversation(g), "primary", endpoint)),
    });
    // A stream dropped by the client, retried at once on either endpoint, later, or not at all.
    for (const point of conversations.length > 0 ? DROP_POINTS : []) {
      out.push({
        cells: [
          `client:drop:${point}`,
          "client:retry-soon:same-endpoint",
          "client:retry-soon:other-endpoint",
          "client:retry-late:same-endpoint",
          "client:retry-late:other-endpoint",
          "client:cancel-without-retry",
        ],
        charged: 2,
        build: (g) => droppedStream(g, session, point),
      });
    }
  }

  // Keys sent again: replays (the same payload, possibly written otherwise) and reuses (another payload).
  for (const key of session.keys) {
    const state = keyState(session, key);
    if (state === undefined || isAnonymous(key.who)) continue;
    const retryable = !key.abandoned;
    const conversation = state === "of-deleted" ? "deleted" : "live";
    for (const endpoint of ENDPOINTS) {
      const retry = retryCells(key, state, endpoint);
      const reordered = canReorder(key, endpoint) ? ["inputs:metadata:reordered-keys"] : [];
      // A replay of an unknown outcome may run for the first time: the service may charge for it.
      const replayCharged = state === "unknown-outcome" ? 1 : 0;
      if (retryable)
        out.push({
          cells: [
            transition("replay", conversation, state, endpoint, "own"),
            ...retry,
            ...reordered,
            ...afterLaterTurns(session, key, endpoint),
          ],
          charged: replayCharged,
          build: (g) => onAnotherConnection(g, key, replayOf(g, session, key, endpoint), replayCharged === 0),
        });
      const changes = PAYLOAD_CHANGES.filter(
        (f) => f !== "conversation_id" || conversationChange(session, key) !== undefined,
      )
        .map((f) => `inputs:payload-change:${f}:${endpoint}`)
        .filter((c) => !session.covered.has(c));
      out.push({
        cells: [transition("reuse", conversation, state, endpoint, "own"), ...changes],
        charged: 0,
        holds: 1,
        build: (g) => onAnotherConnection(g, key, reuseOf(g, session, key, endpoint)),
      });
    }
  }

  // Listings and deletes: by the owner in every state, by everyone else on a live conversation.
  const everyConversation: { conversation: ConversationRecord | undefined; state: ConversationState }[] = [
    ...conversations.map((c) => ({ conversation: c, state: "live" as const })),
    ...deleted(session).map((c) => ({ conversation: c, state: "deleted" as const })),
    { conversation: undefined, state: "unknown" },
  ];
  for (const { conversation, state } of everyConversation) {
    for (const shape of ["no-parameters", "page", "page-size", "both"] as const) {
      const cell = transition("list", state, "n/a", shape, "own");
      // One proposal per page class still unmet: a listing meets one page and one size, and a
      // proposal offering all three would count as a try of the two it did not draw.
      for (const wanted of [undefined, ...pageCells(session, conversation, shape)])
        out.push({
          cells: wanted === undefined ? [cell] : [cell, wanted],
          charged: 0,
          build: (g) =>
            one(
              g,
              listing(
                g,
                session,
                conversation ?? unknownConversation(g),
                conversation?.owner ?? "primary",
                shape,
                wanted,
              ),
            ),
        });
    }
    if (conversation === undefined || state !== "live" || canLose(session, conversation)) {
      out.push({
        cells: [transition("delete", state, "n/a", "n/a", "own")],
        charged: 0,
        build: (g) =>
          one(g, deletion(session, conversation ?? unknownConversation(g), conversation?.owner ?? "primary")),
      });
    }
  }
  for (const conversation of conversations) {
    for (const relation of ["other-agent", "other-key", "no-key", "unknown-key"] as const) {
      const who = callerIn(session, conversation.owner, relation);
      if (who === undefined) continue;
      out.push({
        cells: [transition("list", "live", "n/a", "no-parameters", relation)],
        charged: 0,
        build: (g) => one(g, listing(g, session, conversation, who, "no-parameters")),
      });
      out.push({
        cells: [transition("delete", "live", "n/a", "n/a", relation)],
        charged: 0,
        build: (g) => one(g, deletion(session, conversation, who)),
      });
    }
    out.push(
      ...races(session, conversation)
        .filter((r) => !r.deletes || canLose(session, conversation))
        .map((r) => ({ ...r, build: (g: fc.GeneratorValue) => withRider(g, session, conversation, r.build(g)) })),
    );
  }
  return out;
}

/**
 * Whether a delete may take a live conversation: most of what the walk can do needs one, so the
 * last ones go only while the budget can start new ones, or, while no live conversation has been
 * deleted yet, one of the last two (a sequence whose last conversations went in races never met
 * that free transition).
 */
const canLoseOne = (session: Session) => {
  const living = live(session).length;
  return (
    living > 2 ||
    session.createsLeft > 4 ||
    (living === 2 && !session.covered.has(transition("delete", "live", "n/a", "n/a", "own")))
  );
};

/**
 * Whether a delete may take this live conversation: as canLoseOne says, and not the last of the
 * primary agent's while the free requests that need one wait and the budget could not start
 * another (primaryAgentWanted).
 */
const canLose = (session: Session, conversation: ConversationRecord) =>
  canLoseOne(session) &&
  (session.createsLeft > 2 ||
    !ofPrimaryAgent(conversation) ||
    live(session).filter(ofPrimaryAgent).length > 1 ||
    !primaryAgentCellsWait(session));

/** The ordering class of a delete race, by where the exchange was when the delete was sent. */
const DELETE_RACE_CLASS = {
  "at-once": "delete-exchange-before-created",
  "after-created": "delete-exchange-after-created",
  "after-delta": "delete-exchange-after-delta",
  "after-completed": "delete-exchange-after-completed",
} as const satisfies Record<Timing, string>;

/** Races on a live conversation: a request held open while others are sent at a chosen point of it. */
function races(session: Session, conversation: ConversationRecord): Proposal[] {
  const out: Proposal[] = [];
  // Each exchange of a race carries fresh bodies too: what they still have to cover counts for the race.
  const inputs = uncoveredInputs(session, true);
  // What a held exchange would meet as a near-miss of a turn, on each endpoint: the same for every arrangement.
  const nearMissOn: Record<Endpoint, readonly string[]> = {
    plain: heldNearMissCells(session, conversation, "plain"),
    stream: heldNearMissCells(session, conversation, "stream"),
  };
  const owner = conversation.owner;
  const ordering = (cls: string, a: string, b: string) => [`orderings:${cls}/${a}`, `orderings:${cls}/${b}`];
  const arranged = (cls: string, held: Endpoint, timing: Timing) => {
    const cell = arrangementOf(cls, held, timing);
    return cell === undefined ? [] : [`orderings:${cell}`];
  };
  for (const held of ENDPOINTS) {
    const timings: Timing[] =
      held === "stream" ? ["at-once", "after-created", "after-delta", "after-completed"] : ["at-once"];
    for (const endpoint of ENDPOINTS) {
      // Two exchanges on one conversation, in each arrangement.
      for (const timing of timings) {
        out.push({
          cells: [
            transition("continue", "in-flight", "fresh", endpoint, "own"),
            ...ordering("two-exchanges", "sent-first-first", "sent-second-first"),
            ...arranged("two-exchanges", held, timing),
            ...inputs,
            // What the build below carries: the held exchange's near key, else the second's (one
            // near key at a time). Offered both, a race held on the stream offered a case change on
            // the plain endpoint that it never sent, and took two creates again for it (seed 42006).
            ...(nearMissOn[held].length > 0 ? nearMissOn[held] : nearMissOn[endpoint]),
          ],
          charged: 2,
          build: (g) => {
            // Two exchanges of one text at once could not say which of them a listing lacks.
            const first = heldExchange(g, session, conversation, held);
            // One near key at a time: two drawn at once could be the same key, a race of another class.
            const second = isNearMiss(first)
              ? continuation(g, session, conversation, owner, endpoint, { distinctFrom: first.message, accepted: true })
              : heldExchange(g, session, conversation, endpoint, { distinctFrom: first.message });
            return race(g, first, [second], timing, "two-exchanges");
          },
        });
      }
    }
    // Another identity continuing, listing or deleting while an exchange is generated.
    for (const relation of ["other-agent", "other-key"] as const) {
      const who = callerIn(session, owner, relation);
      if (who === undefined) continue;
      for (const endpoint of ENDPOINTS) {
        out.push({
          cells: [transition("continue", "in-flight", "fresh", endpoint, relation), ...nearMissOn[held]],
          charged: 2,
          build: (g) =>
            race(
              g,
              heldExchange(g, session, conversation, held),
              [continuation(g, session, conversation, who, endpoint)],
              pickOne(g, timings),
            ),
        });
      }
    }
    // The owner listing while an exchange is generated.
    for (const shape of ["no-parameters", "page", "page-size", "both"] as const) {
      out.push({
        cells: [transition("list", "in-flight", "n/a", shape, "own"), ...nearMissOn[held]],
        charged: 1,
        build: (g) =>
          race(
            g,
            heldExchange(g, session, conversation, held),
            [listing(g, session, conversation, owner, shape)],
            pickOne(g, timings),
          ),
      });
    }
    // A delete while an exchange is generated: sent with it, once it was created (what a service
    // spends most of an exchange on comes before its first delta), after a delta, after completion.
    // One proposal per point: the one a bug of a delete during generation needs pulls on its own.
    const deleteTimings: Timing[] =
      held === "stream" ? ["at-once", "after-created", "after-delta", "after-completed"] : ["at-once"];
    for (const timing of deleteTimings) {
      const cls = DELETE_RACE_CLASS[timing];
      out.push({
        deletes: true,
        cells: [
          transition("delete", "in-flight", "n/a", "n/a", "own"),
          ...inputs,
          ...ordering(cls, "exchange-first", "delete-first"),
        ],
        charged: 1,
        // A fresh key: a deleted conversation is never listed again, so nothing could show a near key taken for an earlier one.
        build: (g) =>
          race(
            g,
            continuation(g, session, conversation, owner, held, { accepted: true }),
            [deletion(session, conversation, owner)],
            timing,
            cls,
          ),
      });
    }
    // One key at once: its replay on the same endpoint, on the other (in each arrangement), or reused with another payload.
    for (const endpoint of ENDPOINTS) {
      const cls = endpoint === held ? "replay-in-flight-original" : "one-key-both-endpoints";
      const orders =
        endpoint === held
          ? ordering(cls, "original-first", "replay-first")
          : ordering(cls, "plain-first", "stream-first");
      for (const timing of timings) {
        out.push({
          cells: [
            transition("replay", "live", "in-flight", endpoint, "own"),
            ...orders,
            ...arranged(cls, held, timing),
            ...inputs,
          ],
          charged: 1,
          build: (g) => {
            // A fresh key: the same key sent again at once would be refused in use before any mix-up of near keys could show.
            const first = continuation(g, session, conversation, owner, held, { accepted: true });
            return race(
              g,
              first,
              [
                {
                  ...first,
                  endpoint,
                  replay: true,
                  charged: false,
                  cells: [transition("replay", "live", "in-flight", endpoint, "own")],
                  // A replay's answer says nothing of its body's shapes: the first's, tallied per
                  // endpoint, counted on the stream when a plain replay was answered (seed 22006).
                  acceptedCells: [],
                },
              ],
              timing,
              cls,
            );
          },
        });
      }
      out.push({
        cells: [transition("reuse", "live", "in-flight", endpoint, "own")],
        charged: 2,
        build: (g) => {
          const first = continuation(g, session, conversation, owner, held, { accepted: true });
          return race(g, first, [reuseOfHeld(g, session, conversation, first, endpoint)], pickOne(g, timings));
        },
      });
    }
  }
  return out;
}

/**
 * The near-misses of a conversation's turn keys, each sent with its turn's body, that would meet
 * cells still unmet on this endpoint: the kinds that meet the most (a case flip of the last letter
 * is also a one-character change), each with the turns whose key gives it. Only bodies every
 * service accepts (the exchange must run), and not `distinctFrom`, a race's other text.
 */
function turnNearMisses(
  session: Session,
  conversation: ConversationRecord,
  endpoint: Endpoint,
  distinctFrom?: string,
): { readonly how: NearMiss; readonly turns: readonly KeyUse[]; readonly cells: readonly string[] }[] {
  const sent = sentKeys(session);
  const turns = turnKeys(session, conversation).filter(
    (k) => k.openShape === undefined && !sameText(k.message, distinctFrom),
  );
  const unmet = (key: string, how: NearMiss) =>
    nearMissKinds(key, nearMiss(key, how))
      .map((kind) => `inputs:idempotency-key:near-miss:${kind}/continue/same-body@${endpoint}`)
      .filter((cell) => !session.covered.has(cell));
  const options = NEAR_MISSES.flatMap((how) =>
    turns.filter((k) => canMissBy(k.key, how, sent)).map((k) => ({ how, turn: k, cells: unmet(k.key, how) })),
  );
  const most = Math.max(0, ...options.map((o) => o.cells.length));
  if (most === 0) return [];
  // A case change while it is owed (turnNearMissUnmet): a race that offered it and drew another
  // kind never counted it as tried, and kept pulling races of two creates for it (seed 34002).
  const owed = options.filter((o) => o.cells.some((c) => turnNearMissUnmet(session, c)));
  const best = owed.length > 0 ? owed : options.filter((o) => o.cells.length === most);
  return NEAR_MISSES.flatMap((how) => {
    const of = best.filter((o) => o.how === how);
    const first = of[0];
    return first === undefined ? [] : [{ how, turns: of.map((o) => o.turn), cells: first.cells }];
  });
}

/**
 * The exchange a race holds open beside requests under other keys that leave its conversation to
 * be listed (or a dropped stream): while a near key of a turn, sent with that turn's body, is
 * unmet on this endpoint, that near-miss, else a fresh continuation. The race pays for the
 * exchange anyway; this way every exchange the walk pays for also tries whether the service
 * tells near keys apart, as a fresh create's key does with a body of its own (freshKey).
 */
function heldExchange(
  g: fc.GeneratorValue,
  session: Session,
  conversation: ConversationRecord,
  endpoint: Endpoint,
  options: { readonly drop?: DropPoint; readonly distinctFrom?: string } = {},
): CreateRequest {
  const { drop, distinctFrom } = options;
  const nearMisses = turnNearMisses(session, conversation, endpoint, distinctFrom);
  if (nearMisses.length === 0)
    return continuation(g, session, conversation, conversation.owner, endpoint, {
      accepted: true,
      ...(drop === undefined ? {} : { drop }),
      ...(distinctFrom === undefined ? {} : { distinctFrom }),
    });
  const { how, turns } = pickOne(g, nearMisses);
  const request = nearMissCreate(g, session, longFirst(g, turns, endpoint), endpoint, { how, body: "same-body" });
  return drop === undefined ? request : { ...request, drop };
}

/** Whether a create is sent under a near key of an earlier one. */
const isNearMiss = (request: CreateRequest) => request.cells.some((c) => c.includes("/near-miss/"));

/** What a held exchange on this endpoint would meet as a near-miss of a turn: a race offers it. */
const heldNearMissCells = (session: Session, conversation: ConversationRecord, endpoint: Endpoint) =>
  turnNearMisses(session, conversation, endpoint)[0]?.cells ?? [];

/** The held exchange's key sent again with another payload while it runs (409 in use, or a conflict). */
function reuseOfHeld(
  g: fc.GeneratorValue,
  session: Session,
  conversation: ConversationRecord,
  first: CreateRequest,
  endpoint: Endpoint,
): CreateRequest {
  const changed = freshBody(g, session, conversation.owner, conversation, { distinctFrom: first.message });
  const { openShape: _theirs, ...rest } = first;
  return {
    ...rest,
    endpoint,
    body: changed.body,
    message: changed.message,
    tag: changed.tag,
    replay: false,
    optionalFields: changed.optionalFields,
    ...(changed.openShape === undefined ? {} : { openShape: changed.openShape }),
    cells: [transition("reuse", "live", "in-flight", endpoint, "own")],
    acceptedCells: [],
  };
}

/**
 * A race with one more request sent beside the others while one of the free experiments on an
 * exchange in flight is unmet: the owner listing the conversation (in a page shape), another
 * agent or key continuing it, or the held key reused with another payload. Each costs a conforming
 * service nothing but needs an exchange held open, which the race pays for anyway: alone, each
 * was a create of its own, and in 24 sequences of 24 creates none was ever met.
 */
function withRider(
  g: fc.GeneratorValue,
  session: Session,
  conversation: ConversationRecord,
  command: Command | undefined,
): Command | undefined {
  if (command?.kind !== "race" || command.held.kind !== "create" || command.held.who !== conversation.owner)
    return command;
  // Not beside a delete: whether the rider came before or after it would be a guess, and a listing
  // that failed for another reason could be blamed on the delete (DEL-1 reported for a mangled text).
  if (command.others.some((o) => o.kind === "delete")) return command;
  const held = command.held;
  const owner = conversation.owner;
  const riders: { readonly cell: string; readonly build: () => Request }[] = [];
  for (const shape of ["no-parameters", "page", "page-size", "both"] as const)
    riders.push({
      cell: transition("list", "in-flight", "n/a", shape, "own"),
      build: () => listing(g, session, conversation, owner, shape),
    });
  for (const endpoint of ENDPOINTS) {
    for (const relation of ["other-agent", "other-key"] as const) {
      const who = callerIn(session, owner, relation);
      if (who !== undefined)
        riders.push({
          cell: transition("continue", "in-flight", "fresh", endpoint, relation),
          build: () => continuation(g, session, conversation, who, endpoint),
        });
    }
    // Not beside another request under the held key: which of them the service refused would be a
    // guess. Nor under a near key: a service that took it for the earlier key would show a reuse served.
    if (!command.others.some((o) => o.kind === "create" && o.key === held.key) && !isNearMiss(held))
      riders.push({
        cell: transition("reuse", "live", "in-flight", endpoint, "own"),
        build: () => reuseOfHeld(g, session, conversation, held, endpoint),
      });
  }
  const unmet = riders.filter((r) => !session.covered.has(r.cell));
  if (unmet.length === 0) return command;
  return { ...command, others: [...command.others, sentWhileHeld(pickOne(g, unmet).build())] };
}

/**
 * A request sent while a race's held request runs: it meets its conversation with an exchange in
 * flight (a key sent again meets the key in flight instead, a cell of its own).
 */
function sentWhileHeld(request: Request): Request {
  const inFlight = (cell: string) => cell.replace(/^transitions:live\/(?!in-flight\/)/, "transitions:in-flight/");
  return { ...request, cells: request.cells.map(inFlight) };
}

/**
 * The body's shapes a retry on `endpoint` covers once accepted: a kind tallied per endpoint
 * (`…@stream`) counts for that endpoint. Not the key's: sent again, it is a retry, no longer a
 * near miss of an earlier key (a plain retry of a stream's case-changed key was counted as the
 * case change tried on the plain endpoint, seed 42004).
 */
const retriedShapes = (cells: readonly string[], endpoint: Endpoint) =>
  cells
    .filter((cell) => !cell.startsWith("inputs:idempotency-key:"))
    .map((cell) => cell.replace(/@(plain|stream)$/, `@${endpoint}`));

function one(g: fc.GeneratorValue, request: Request | undefined): Command | undefined {
  return request === undefined ? undefined : { kind: "one", request, lane: g(() => fc.nat(LANES - 1)) };
}

/**
 * A key sent again on a connection other than its first request's, three times in four: a
 * service whose replicas or workers each keep what a key did in their own memory shows it only to
 * a request that lands elsewhere, as a client's retry on a new connection does. A replay that costs
 * nothing goes to every connection in turn, always: behind a balancer that spreads connections over
 * replicas, one connection other than the first may still land on the first's replica (the full
 * kill rate missed idempotency-per-replica in one run of ten at seeds 22000, 24000 and 27000), and
 * a sequence whose few plain replays each went to their first connection alone never showed it
 * (seeds 22007 and 42005).
 */
function onAnotherConnection(
  g: fc.GeneratorValue,
  key: KeyUse,
  request: Request | undefined,
  free = false,
): Command | undefined {
  if (request === undefined) return undefined;
  const lanes = Array.from({ length: LANES }, (_, lane) => lane);
  if (free) {
    // Every connection, the first's too, beginning with any of them.
    const lane = pickOne(g, lanes);
    return { kind: "one", request, lane, alsoOn: lanes.filter((other) => other !== lane) };
  }
  if (g(() => fc.nat(3)) === 0) return { kind: "one", request, lane: key.lane };
  return {
    kind: "one",
    request,
    lane: pickOne(
      g,
      lanes.filter((lane) => lane !== key.lane),
    ),
  };
}

function race(
  g: fc.GeneratorValue,
  held: Request | undefined,
  others: readonly (Request | undefined)[],
  timing: Timing,
  ordering?: string,
): Command | undefined {
  const sent = others.filter((r): r is Request => r !== undefined).map(sentWhileHeld);
  if (held === undefined || sent.length === 0) return undefined;
  return {
    kind: "race",
    held,
    others: sent,
    timing: held.kind === "create" && held.endpoint === "stream" ? timing : "at-once",
    ...(ordering === undefined ? {} : { ordering }),
  };
}

function createNew(
  g: fc.GeneratorValue,
  session: Session,
  who: Who,
  endpoint: Endpoint,
  drop?: DropPoint,
  reference?: ReferenceClass,
): CreateRequest {
  const key = freshKey(g, session, who, "new", endpoint);
  const relation: Relation = who === "noKey" ? "no-key" : who === "unknownKey" ? "unknown-key" : "own";
  // A request that must be refused for who sends it carries a body every service accepts: a
  // refusal of the body would hide a service that lets it through.
  const body = freshBody(g, session, who, undefined, {
    endpoint,
    ...(relation === "own" ? {} : { openAllowed: false, refused: true }),
    ...(reference === undefined ? {} : { reference }),
  });
  return {
    kind: "create",
    who,
    endpoint,
    key: key.key,
    body: body.body,
    message: body.message,
    tag: body.tag,
    replay: false,
    charged: relation === "own",
    optionalFields: body.optionalFields,
    ...(body.openShape === undefined ? {} : { openShape: body.openShape }),
    cells: [transition("create", "none", "fresh", endpoint, relation)],
    acceptedCells: [...body.acceptedCells, ...key.cells],
    ...(drop === undefined ? {} : { drop }),
  };
}

interface ContinuationOptions {
  /** Where the client drops the stream. */
  readonly drop?: DropPoint;
  /** A text the message must differ from. */
  readonly distinctFrom?: string;
  /** Only shapes every service accepts: a race or a drop needs its exchange to run. */
  readonly accepted?: boolean;
  /** The external_reference's class: one used again, or one not yet sent on this endpoint. */
  readonly reference?: ReferenceClass;
}

function continuation(
  g: fc.GeneratorValue,
  session: Session,
  conversation: ConversationRecord,
  who: Who,
  endpoint: Endpoint,
  options: ContinuationOptions = {},
): CreateRequest {
  const { drop, distinctFrom, accepted, reference } = options;
  const state: ConversationState =
    session.conversation(conversation.id) === undefined ? "unknown" : conversation.deleted ? "deleted" : "live";
  const relation = relationOf(who, conversation.owner);
  const key = freshKey(g, session, who, "continue", endpoint);
  // Refused for who sends it or for the conversation it names: a body every service accepts, so
  // that only the scope or the conversation can be why (see createNew).
  const refused = relation !== "own" || state !== "live";
  const plainBody = accepted === true || refused;
  const body = freshBody(g, session, who, conversation, {
    endpoint,
    ...(distinctFrom === undefined ? {} : { distinctFrom }),
    ...(plainBody ? { openAllowed: false } : {}),
    ...(refused ? { refused: true } : {}),
    ...(reference === undefined ? {} : { reference }),
  });
  return {
    kind: "create",
    who,
    endpoint,
    key: key.key,
    body: body.body,
    message: body.message,
    tag: body.tag,
    replay: false,
    charged: relation !== "no-key" && relation !== "unknown-key",
    optionalFields: body.optionalFields,
    ...(body.openShape === undefined ? {} : { openShape: body.openShape }),
    cells: [transition("continue", state, "fresh", endpoint, relation)],
    acceptedCells: relation === "own" ? [...body.acceptedCells, ...key.cells] : [],
    ...(drop === undefined ? {} : { drop }),
  };
}

/** The keys of a conversation's completed turns (not the one that started it): what a near-miss of a turn's key starts from. */
function turnKeys(session: Session, conversation: ConversationRecord): KeyUse[] {
  return session.keys.filter(
    (k) =>
      k.status === "completed" &&
      k.conversationId?.toLowerCase() === conversation.id.toLowerCase() &&
      typeof k.body.conversation_id === "string",
  );
}

/** A conversation nobody created: a random UUID. */
function unknownConversation(g: fc.GeneratorValue): ConversationRecord {
  return {
    id: g(() => fc.uuid({ version: 4 })),
    owner: "primary",
    deleted: false,
    messages: [],
    total: undefined,
    unread: [],
  };
}

/**
 * A key one small step from an earlier one: a different key is a different operation. Sent with
 * the earlier body (a service that confuses the keys replays instead of running it) or with a
 * fresh one (it answers 409, with nothing running at the time to excuse it).
 */
function nearMissCreate(
  g: fc.GeneratorValue,
  session: Session,
  earlier: KeyUse,
  endpoint: Endpoint,
  chosen?: { readonly how: NearMiss; readonly body: "same-body" | "other-body" },
): CreateRequest {
  const kind =
    earlier.body.conversation_id === undefined || earlier.body.conversation_id === null ? "create" : "continue";
  const starts = kind === "create" ? "new" : "continue";
  const cells = [transition(kind, kind === "create" ? "none" : "live", "near-miss", endpoint, "own")];
  // Unless chosen: the earlier body where its near-misses are not all met yet; a fresh body also covers messages.
  const pending = (body: "same-body" | "other-body") => nearMissCells(session, `${starts}/${body}`).length;
  const messagesPending = MESSAGE_CLASSES.some((c) => !session.covered.has(`inputs:message:${c}`));
  const otherWanted = pending("other-body") > 0 || messagesPending;
  const sameBodyChance = pending("same-body") === 0 ? 1 : otherWanted ? 2 : 3;
  const sameBody =
    chosen === undefined ? g(() => fc.integer({ min: 0, max: 3 })) < sameBodyChance : chosen.body === "same-body";
  const key = nearMissKey(
    g,
    session,
    earlier,
    `${starts}/${sameBody ? "same-body" : "other-body"}`,
    endpoint,
    chosen?.how,
  );
  if (!sameBody) {
    const body = freshBody(
      g,
      session,
      earlier.who,
      kind === "create" ? undefined : session.conversation(earlier.conversationId),
      { endpoint },
    );
    return {
      kind: "create",
      who: earlier.who,
      endpoint,
      key: key.key,
      body: body.body,
      message: body.message,
      tag: body.tag,
      replay: false,
      charged: true,
      optionalFields: body.optionalFields,
      ...(body.openShape === undefined ? {} : { openShape: body.openShape }),
      cells,
      acceptedCells: [...body.acceptedCells, ...key.cells],
    };
  }
  return {
    kind: "create",
    who: earlier.who,
    endpoint,
    key: key.key,
    body: earlier.body,
    message: earlier.message,
    tag: earlier.tag,
    replay: false,
    charged: true,
    optionalFields: "external_reference" in earlier.body || "metadata" in earlier.body,
    ...(earlier.openShape === undefined ? {} : { openShape: earlier.openShape }),
    cells,
    acceptedCells: [...key.cells, ...repeatedBy(session, earlier, starts)],
  };
}

/**
 * What a create that repeats an earlier body (a same-body near-miss) also is: the same text again
 * in its conversation, or, for a new conversation, a reference that started one used again, where
 * a service that takes the reference for a natural key continues the earlier conversation.
 */
function repeatedBy(session: Session, earlier: KeyUse, starts: "new" | "continue"): string[] {
  if (starts === "continue") return [REPEATED_BODY.continue];
  const living = session.conversation(earlier.conversationId)?.deleted === false;
  return living && typeof earlier.body.external_reference === "string" ? [REPEATED_BODY.new] : [];
}

/** The cell a repeated body may meet besides its key's, by what it starts (repeatedBy). */
const REPEATED_BODY = {
  continue: "inputs:message:same-text-twice",
  new: "inputs:external_reference:reused-in-two-conversations/new",
} as const;

/** A key another identity used, sent by the primary identity with a body of its own. */
function foreignKeyCreate(g: fc.GeneratorValue, session: Session, theirs: KeyUse, endpoint: Endpoint): CreateRequest {
  const body = freshBody(g, session, "primary", undefined, { endpoint });
  return {
    kind: "create",
    who: "primary",
    endpoint,
    key: theirs.key,
    body: body.body,
    message: body.message,
    tag: body.tag,
    replay: false,
    charged: true,
    optionalFields: body.optionalFields,
    ...(body.openShape === undefined ? {} : { openShape: body.openShape }),
    cells: [transition("create", "none", "of-another-scope", endpoint, "own")],
    acceptedCells: body.acceptedCells,
  };
}

/**
 * What sending a dropped stream's key again with its payload meets: a late retry; once retried, a
 * replay, on each endpoint (the `@endpoint` tally, not reported: a stream handler that keeps a
 * dropped key locked, or takes it for a resume, shows only on the stream endpoint, and a client
 * that retried on the plain endpoint never tried it).
 */
function retryCells(key: KeyUse, state: KeyState, endpoint: Endpoint): string[] {
  // Only while its conversation lives: a deleted conversation's key may be refused in many ways,
  // and a stream handler's lost lock or resume would hide among them.
  if (!key.dropped || state === "of-deleted") return [];
  if (key.retried && state !== "unknown-outcome")
    return ["client:replayed-after-retry", `client:replayed-after-retry@${endpoint}`];
  return [`client:retry-late:${endpoint === key.endpoint ? "same" : "other"}-endpoint`];
}

/** Whether a replay may write the key's payload otherwise: metadata of two keys or more, once the endpoint answered it as sent. */
const canReorder = (key: KeyUse, endpoint: Endpoint) =>
  typeof key.body.metadata === "object" &&
  key.body.metadata !== null &&
  Object.keys(key.body.metadata).length > 1 &&
  key.answeredAsSent.has(endpoint);

/**
 * What a replay of a finished key also is once its conversation took later turns (a tally, not a
 * reported cell): a record that keeps only the conversation answers its latest turn instead, and
 * a replay right after the first request cannot tell the two apart.
 */
function afterLaterTurns(session: Session, key: KeyUse, endpoint: Endpoint): string[] {
  const conversation = session.conversation(key.conversationId);
  if (key.status !== "completed" || conversation === undefined || conversation.deleted) return [];
  const at = conversation.messages.lastIndexOf(key.message);
  return at !== -1 && at < conversation.messages.length - 1 ? [`replay:after-later-turns@${endpoint}`] : [];
}

function replayOf(g: fc.GeneratorValue, session: Session, key: KeyUse, endpoint: Endpoint): CreateRequest {
  const state = keyState(session, key) ?? "completed";
  const reorder = canReorder(key, endpoint) && g(() => fc.boolean());
  const retry = retryCells(key, state, endpoint);
  return {
    kind: "create",
    who: key.who,
    endpoint,
    key: key.key,
    body: reorder ? (reorderKeys(key.body) as Record<string, unknown>) : key.body,
    message: key.message,
    tag: key.tag,
    replay: state !== "unknown-outcome",
    charged: state === "unknown-outcome",
    optionalFields: "external_reference" in key.body || "metadata" in key.body,
    again: key,
    ...(key.openShape === undefined ? {} : { openShape: key.openShape }),
    cells: [
      transition("replay", state === "of-deleted" ? "deleted" : "live", state, endpoint, "own"),
      ...retry,
      ...afterLaterTurns(session, key, endpoint),
      ...(reorder ? ["inputs:metadata:reordered-keys"] : []),
    ],
    // A retry of a key whose first request's outcome is unknown may be what stores its body.
    acceptedCells: state === "unknown-outcome" ? key.inputCells : [],
  };
}

/**
 * An earlier key with another payload: one field changed, the message, the metadata, the external
 * reference or the conversation (the same message sent to another conversation, or to start one:
 * a fingerprint of what the agent is asked, not of where it goes, takes it for a replay).
 */
function reuseOf(g: fc.GeneratorValue, session: Session, key: KeyUse, endpoint: Endpoint): CreateRequest {
  const state = keyState(session, key) ?? "completed";
  const otherConversation = conversationChange(session, key);
  const field = pickWeighted(
    g,
    PAYLOAD_CHANGES.filter((f) => f !== "conversation_id" || otherConversation !== undefined).map((f) => ({
      value: f,
      weight: session.covered.has(`inputs:payload-change:${f}:${endpoint}`) ? 1 : 20,
    })),
  );
  const tag = field === "message" ? session.target.message("m") : key.tag;
  const value =
    field === "message"
      ? `${tag} changed`
      : field === "metadata"
        ? { changed: session.target.idempotencyKey("meta") }
        : field === "conversation_id"
          ? otherConversation
          : `${session.target.idempotencyKey("ref")}:changed`;
  const body = { ...key.body, [field]: value };
  // The changed field no longer has the earlier body's open shape when it was that field.
  const openShape = key.openShape === undefined || key.openShape.startsWith(`${field}:`) ? undefined : key.openShape;
  return {
    kind: "create",
    who: key.who,
    endpoint,
    key: key.key,
    body,
    message: typeof body.message === "string" ? body.message : key.message,
    tag,
    replay: false,
    charged: true,
    optionalFields: true,
    again: key,
    ...(openShape === undefined ? {} : { openShape }),
    cells: [
      transition("reuse", state === "of-deleted" ? "deleted" : "live", state, endpoint, "own"),
      `inputs:payload-change:${field}:${endpoint}`,
    ],
  };
}

/**
 * Where a key's payload can be sent instead: a continuation's to start a conversation (null); a new
 * conversation's to the conversation it started, or another of its caller's, while one lives.
 */
function conversationChange(session: Session, key: KeyUse): string | null | undefined {
  if (typeof key.body.conversation_id === "string") return null;
  const own = live(session).filter((c) => c.owner === key.who);
  return (own.find((c) => c.id === key.conversationId) ?? own[0])?.id;
}

/** Page parameters of a shape, with values at the bounds: the first page, the last, one past it; sizes 1, 100 and between. */
function listing(
  g: fc.GeneratorValue,
  session: Session,
  conversation: ConversationRecord,
  who: Who,
  shape: QueryShape,
  wanted?: string,
): ListRequest {
  const total = conversation.total ?? 0;
  // The page class this listing is for weighs most; the others as the run still lacks them.
  const fresh = (cell: string) =>
    wanted === `inputs:${cell}` ? 1_000 : wanted !== undefined || session.covered.has(`inputs:${cell}`) ? 1 : 20;
  // A last page other than the first needs a size below the total: 1 when that page is still to be seen.
  const sizes = [1, g(() => fc.integer({ min: 2, max: 7 })), 100];
  const pageSize =
    shape === "page-size" || shape === "both"
      ? pickWeighted(
          g,
          sizes.map((value, i) => ({
            value,
            weight:
              fresh(["page_size:1", "page_size:between", "page_size:100"][i] ?? "") +
              (value === 1 && total > 1 ? fresh("page:last") : 0),
          })),
        )
      : undefined;
  const size = pageSize ?? 50;
  const last = Math.max(1, Math.ceil(total / size));
  const page =
    shape === "page" || shape === "both"
      ? pickWeighted(g, [
          { value: 1, weight: fresh("page:first") },
          { value: last, weight: fresh("page:last") },
          { value: last + 1, weight: fresh("page:past-the-end") },
        ])
      : undefined;
  const state: ConversationState =
    session.conversation(conversation.id) === undefined ? "unknown" : conversation.deleted ? "deleted" : "live";
  const cells = [transition("list", state, "n/a", shape, relationOf(who, conversation.owner))];
  const accepted = [
    ...(page === undefined
      ? []
      : [page === 1 ? "inputs:page:first" : page === last ? "inputs:page:last" : "inputs:page:past-the-end"]),
    ...(pageSize === undefined
      ? []
      : [
          pageSize === 1
            ? "inputs:page_size:1"
            : pageSize === 100
              ? "inputs:page_size:100"
              : "inputs:page_size:between",
        ]),
  ];
  const query = { ...(page === undefined ? {} : { page }), ...(pageSize === undefined ? {} : { pageSize }) };
  return {
    kind: "list",
    who,
    conversationId: conversation.id,
    query,
    cells,
    acceptedCells: state === "live" && who === conversation.owner ? accepted : [],
  };
}

function deletion(session: Session, conversation: ConversationRecord, who: Who): DeleteRequest {
  const state: ConversationState =
    session.conversation(conversation.id) === undefined ? "unknown" : conversation.deleted ? "deleted" : "live";
  return {
    kind: "delete",
    who,
    conversationId: conversation.id,
    cells: [transition("delete", state, "n/a", "n/a", relationOf(who, conversation.owner))],
  };
}

/** A stream dropped by the client at `point`, then sent again at once (same or other endpoint), later, or never. */
function droppedStream(g: fc.GeneratorValue, session: Session, point: DropPoint): Command | undefined {
  // A continuation by its owner: its listing tells whether the dropped stream took effect (a new conversation's id would stay unknown).
  const conversations = live(session).filter((c) => !isAnonymous(c.owner));
  if (conversations.length === 0) return undefined;
  const conversation = pickOne(g, conversations);
  const first = heldExchange(g, session, conversation, "stream", { drop: point });
  const retriedOnce = session.keys.some((k) => k.dropped && !k.abandoned);
  const lateRetriesLeft =
    !session.covered.has("client:retry-late:same-endpoint") || !session.covered.has("client:retry-late:other-endpoint");
  const retry = pickWeighted(g, [
    { value: "same", weight: session.covered.has("client:retry-soon:same-endpoint") ? 1 : 4 },
    { value: "other", weight: session.covered.has("client:retry-soon:other-endpoint") ? 1 : 4 },
    { value: "later", weight: lateRetriesLeft ? 4 : 1 },
    // A cancel is one behaviour, and the retries of a stream dropped mid-generation are four: they come first.
    { value: "none", weight: session.covered.has("client:cancel-without-retry") || !retriedOnce ? 1 : 4 },
  ] as const);
  const lane = g(() => fc.nat(LANES - 1));
  // Not retried now, and never: the client cancelled (a later retry would make it another behaviour).
  if (retry === "none") return { kind: "one", request: { ...first, abandoned: true }, lane };
  // The retry carries the same body: accepted, it covers the shapes the dropped stream could not.
  const { drop: _dropped, ...again } = first;
  const retryOn = (endpoint: Endpoint, when: "soon" | "late"): CreateRequest => ({
    ...again,
    endpoint,
    cells: [`client:retry-${when}:${endpoint === "stream" ? "same" : "other"}-endpoint`],
    acceptedCells: retriedShapes(again.acceptedCells ?? [], endpoint),
  });
  if (retry === "later") {
    // Once every late retry was met, a later replay of its key, chosen by the walk among the rest, is the late retry.
    if (!lateRetriesLeft) return { kind: "one", request: first, lane };
    // Sent again once the dropped stream has surely finished, on an endpoint whose late retry is unmet.
    const endpoint = session.covered.has("client:retry-late:same-endpoint") ? "plain" : "stream";
    return { kind: "one", request: first, lane, retryLate: retryOn(endpoint, "late") };
  }
  const endpoint = retry === "same" ? "stream" : "plain";
  return {
    kind: "one",
    request: first,
    lane,
    retrySoon: retryOn(endpoint, "soon"),
    // Refused while the first still ran (409 in use), a client retries once it has finished.
    retryLate: retryOn(endpoint, "late"),
  };
}

/** Cells only a conversation's second text reaches: the same text again, or in its other normalisation form. */
/**
 * The cells of an external_reference used again that a create could still meet, with the
 * identities that can send it: on a new conversation (`conversation` undefined), a reference of
 * the same caller that started one (where a service that takes the reference for a natural key
 * would look it up) or another scope's; on a continuation, the owner's reference of another
 * conversation or another scope's. These cells need an earlier reference, so no fresh create
 * counts them (CREATE_INPUTS), and a create that drew the class at random seldom carried it (a
 * long message or an open metadata shape leaves the reference out): in 24 creates a reference
 * was never reused by a new conversation. Each is a proposal of its own, its class chosen.
 */
function referenceReuses(
  session: Session,
  conversation: ConversationRecord | undefined,
): { readonly cell: string; readonly cls: ReusedReference; readonly callers: readonly Who[] }[] {
  const use = conversation === undefined ? "new" : "continue";
  const senders = conversation === undefined ? callers(session) : [conversation.owner];
  const id = conversation?.id.toLowerCase();
  // A new conversation's: a reference that started one still there to be found.
  const sameScope = (who: Who) =>
    session.references.some(
      (r) =>
        r.who === who &&
        r.conversationId?.toLowerCase() !== id &&
        (conversation !== undefined || startedLiving(session, r)),
    );
  const otherScope = (who: Who) => session.references.some((r) => r.who !== who);
  const out: { cell: string; cls: ReusedReference; callers: Who[] }[] = [];
  for (const [cls, can] of [
    ["reused-in-two-conversations", sameScope],
    ["reused-in-two-scopes", otherScope],
  ] as const) {
    const cell = `inputs:external_reference:${cls}/${use}`;
    const able = senders.filter(can);
    if (able.length > 0 && !session.covered.has(cell)) out.push({ cell, cls, callers: able });
  }
  return out;
}

const ACROSS_SCOPES_CONTINUE = "inputs:external_reference:reused-in-two-scopes/continue";
/**
 * The creates of a full sequence (what the suite's property gives each one): a shorter one (the
 * smoke profile's six) spends none on starting a conversation only for a later request to meet a
 * cell, which the bugs of its races need more.
 */
export const FULL_SEQUENCE_CREATES = 24;

/**
 * Who may start the conversation that a continuation carrying another scope's reference needs,
 * while none can be continued so: the identities besides the primary one, whose new conversation
 * carries a reference of the primary's (or one of its own, for the primary's conversations to
 * carry). They start conversations only when a proposal asks for them: while the primary agent has
 * a live one, a plain create is seldom drawn, and a deep walk of 30 sequences (seed 337437947) met
 * no other identity's reference before each sequence's last create. The cell the proposal is for
 * is not one its create carries, so it never counts as tried (attempted()).
 */
function acrossScopesOpeners(session: Session): Who[] {
  if (session.covered.has(ACROSS_SCOPES_CONTINUE) || session.createsAllowed < FULL_SEQUENCE_CREATES) return [];
  const continuable = live(session).some((c) => session.references.some((r) => r.who !== c.owner));
  return continuable ? [] : callers(session).filter((who) => who !== "primary");
}

function twiceCells(session: Session, conversation: ConversationRecord): string[] {
  const cells: string[] = [];
  if (conversation.messages.length > 0 && !session.covered.has("inputs:message:same-text-twice"))
    cells.push("inputs:message:same-text-twice");
  if (
    conversation.messages.some((m) => m.normalize("NFD") !== m) &&
    !session.covered.has("inputs:message:normalisation-forms")
  )
    cells.push("inputs:message:normalisation-forms");
  return cells;
}

/** One create under a near-miss of one of `earlier` (keys of new conversations, or of one conversation's turns), worth the cells of that use it can still meet. */
function nearMissProposals(
  session: Session,
  earlier: readonly KeyUse[],
  endpoint: Endpoint,
  starts: "new" | "continue",
): Proposal[] {
  const transitionCell =
    starts === "new"
      ? transition("create", "none", "near-miss", endpoint, "own")
      : transition("continue", "live", "near-miss", endpoint, "own");
  // One proposal per near-miss cell still unmet, its kind chosen: a proposal that offered all
  // eight and met one would count as tried for seven it never attempted (misses()). Only with the
  // earlier body: a near key with a body of its own rides on every other fresh create (freshKey),
  // and a service that confuses two keys shows it with the earlier body whatever it does (it
  // replays or refuses where it should run), with another body only when it also compares them.
  const out: Proposal[] = [];
  const sent = sentKeys(session);
  // The same body again may meet one more cell: then a key whose body meets it, when there is one.
  const repeats = [REPEATED_BODY[starts]].filter((c) => !session.covered.has(c));
  // A new conversation's first takes a long key when one can give it: its near miss keeps the
  // key's first 40 characters, so it tries a column that cuts keys and a comparison that folds them
  // at once (seed 16003 missed a 40-character column: the first near miss was of a 21-character
  // key). New conversations are few; turns are many and meet long keys by their draw.
  const first = starts === "new" && !newNearMissMet(session);
  // A key of this endpoint when there is one: its near-miss meets the same key table.
  const here = (keys: KeyUse[]) => {
    const of = keys.filter((k) => k.endpoint === endpoint);
    return of.length > 0 ? of : keys;
  };
  const kinds = NEAR_MISSES.flatMap((how) => {
    const cell = `inputs:idempotency-key:near-miss:${how}/${starts}/same-body`;
    // Met on this endpoint too: a key table is often one per endpoint.
    const pending = [cell, `${cell}@${endpoint}`].filter((c) => !session.covered.has(c));
    // A key whose near-miss of this kind was sent already cannot give it again (nearMissKey).
    const missable = earlier.filter((k) => canMissBy(k.key, how, sent));
    const long = first ? here(missable.filter((k) => k.key.length > LONG_KEY_CHARS)) : [];
    return pending.length === 0 ? [] : [{ how, pending, long, candidates: here(missable) }];
  });
  // While a kind can give a long key's near miss, no kind goes without one: a suffix of a
  // 21-character key, drawn first (seeds 29001 and 30002), let a 40-character column go unseen.
  const longOnly = kinds.some((k) => k.long.length > 0);
  for (const { how, pending, long, candidates } of kinds) {
    if (longOnly && long.length === 0) continue;
    const pool = long.length > 0 ? long : candidates;
    const carrying = repeats.length > 0 ? pool.filter((k) => repeatedBy(session, k, starts).length > 0) : [];
    const able = carrying.length > 0 ? carrying : pool;
    if (able.length === 0) continue;
    out.push({
      // The repeated body's cell only where a key carries it: offered and never met, it would count as tried.
      cells: [transitionCell, ...pending, ...(carrying.length > 0 ? repeats : [])],
      charged: 1,
      build: (g) =>
        one(g, nearMissCreate(g, session, longFirst(g, able, endpoint), endpoint, { how, body: "same-body" })),
    });
  }
  // Every cell met: a near-miss still, of any kind, with other inputs.
  if (out.length === 0)
    out.push({
      cells: [transitionCell],
      charged: 1,
      build: (g) => one(g, nearMissCreate(g, session, longFirst(g, earlier, endpoint), endpoint)),
    });
  return out;
}

/** The near-miss cells not yet met, of one use or of every use: what one more near-miss create is worth. */
function nearMissCells(session: Session, use?: NearMissUse): string[] {
  const uses = use === undefined ? NEAR_MISS_USES : [use];
  return NEAR_MISSES.flatMap((how) => uses.map((u) => `inputs:idempotency-key:near-miss:${how}/${u}`)).filter(
    (c) => !session.covered.has(c),
  );
}

/** The page classes a listing of this shape could still meet: a page number only with `page`, a size only with `page_size`. */
function pageCells(session: Session, conversation: ConversationRecord | undefined, shape: QueryShape): string[] {
  if (conversation === undefined || conversation.deleted) return [];
  // A last page other than the first: with a size below the total (page_size 1), or past the default 50.
  const lastReachable = shape === "both" || (conversation.total ?? 0) > 50;
  const pages =
    shape === "page" || shape === "both"
      ? ["page:first", ...(lastReachable ? ["page:last"] : []), "page:past-the-end"]
      : [];
  const sizes = shape === "page-size" || shape === "both" ? ["page_size:1", "page_size:between", "page_size:100"] : [];
  return [...pages, ...sizes].map((c) => `inputs:${c}`).filter((c) => !session.covered.has(c));
}

/**
 * How much a proposal is worth now: the cells it reaches, each the more the less the run covered
 * it (a cell never covered most); a create only where that is worth its cost, free requests
 * always a little, so every cell keeps being met again with other inputs, lanes and orders.
 */
function weightOf(session: Session, proposal: Proposal, pending: boolean): number {
  // Without a live conversation nearly nothing is enabled: starting one is worth most.
  if (
    live(session).length === 0 &&
    proposal.charged === 1 &&
    proposal.cells[0]?.includes("/create/") === true &&
    proposal.cells[0].endsWith("/own")
  )
    return OVERDUE;
  // A create the walk pays for leaves one over: requests a conforming service refuses hold one while they run.
  if (proposal.charged > 0 && proposal.charged >= session.createsLeft) return 0;
  if ((proposal.holds ?? 0) > session.createsLeft) return 0;
  // Far above every other overdue create: a drop drawn at their odds (two proposals among a dozen
  // at 10,000) went unsent through 23 creates (seed 17005), and every client behaviour, and each
  // bug of a stream its client left, waits for it.
  if (dropOverdue(session) && proposal.cells.some((c) => c.startsWith("client:drop:") && firstDropPoint(session, c)))
    return 1_000_000;
  // A dropped stream's key sent again on each endpoint costs nothing, and goes before anything
  // that could end its conversation (an overdue create, a delete race, draws at 10,000 too): a
  // delete drawn first left only the deleted key's replays, where a lost lock hides.
  if (proposal.charged === 0 && proposal.cells.some((c) => c.startsWith("client:") && unmetStill(session, c)))
    return 100_000;
  if (proposal.charged > 0 && proposal.cells.some((c) => createOverdue(session, c) || raceOverdue(session, c)))
    return OVERDUE;
  const novelty = proposal.cells.reduce(
    (sum, cell) =>
      sum + cellValue(cell, pending, session) / (1 + 2 * session.covered.count(cell) + misses(session, cell)) ** 2,
    0,
  );
  const fresh = proposal.cells.some((cell) => !session.covered.has(cell));
  if (proposal.charged === 0) return 1 + 50 * novelty;
  return (fresh ? 50 * novelty : 10 * novelty) / proposal.charged;
}

/**
 * Whether a drop at this point may go first: right after response.created while that drop is
 * unmet, as every service is still generating then (one that streams its deltas in a burst after
 * thinking has finished by the first delta); any point once it is met.
 */
const firstDropPoint = (session: Session, cell: string) =>
  cell === "client:drop:after-created" || session.covered.has("client:drop:after-created");

/**
 * What covering a cell is worth: the shapes of what the service stores, the client behaviours,
 * the orders of races and what free requests reach first; the transitions only a create reaches
 * once a fresh body's shapes are met (the first few creates meet them).
 */
function cellValue(cell: string, shapesPending: boolean, session: Session): number {
  if (cell.startsWith("inputs:") || cell.startsWith("client:")) return 10;
  // A race class not yet run at all is worth as much as a shape: every class gets its race early.
  if (cell.startsWith("orderings:")) return raceClassRun(session, cell) ? 6 : 10;
  // While the shapes of fresh bodies wait for creates, create-only transitions wait for them.
  if (cell.startsWith("transitions:") && transitionNeedsCreate(cell.slice("transitions:".length)))
    return shapesPending ? 0.2 : 6;
  return 3;
}

/** Whether a race of the ordering cell's class ran in this run, whichever order it showed. */
const raceClassRun = (session: Session, cell: string) =>
  session.covered.has(`race:${cell.slice("orderings:".length).split("/")[0] ?? ""}`);

/**
 * Whether a shape a fresh body can take is still to be covered (what creates go to first): the
 * first few creates meet them all. Shapes that need an earlier key, text or reference, and the
 * client behaviours, are cells like any other: waiting for every one of them, the transitions
 * only a create reaches were worth next to nothing for the whole of a 24-create sequence.
 */
const shapesPending = (session: Session) => CREATE_INPUTS.some((cell) => !session.covered.has(cell));

/**
 * Of the cells a proposal offered, those its command tries: an input shape only when one of its
 * requests carries it (a proposal offers every shape it could draw, a command draws one or some),
 * so that a shape counts as tried, and its pull falls (`misses`), only when it was sent.
 */
function attempted(offered: readonly string[], command: Command): string[] {
  const requests =
    command.kind === "race"
      ? [command.held, ...command.others]
      : [
          command.request,
          ...(command.retrySoon === undefined ? [] : [command.retrySoon]),
          ...(command.retryLate === undefined ? [] : [command.retryLate]),
        ];
  const carried = new Set(requests.flatMap((r) => [...r.cells, ...(r.acceptedCells ?? [])]));
  return offered.filter((cell) => !cell.startsWith("inputs:") || carried.has(cell));
}

/**
 * The owed creates, each owed cell with an equal share of the draw however many proposals offer
 * it. Drawn a proposal each, a shape that every live conversation and endpoint offers outweighed
 * the one race that meets its own cell: at seed 42001 a delete during generation was one proposal
 * among 32 owed through ten creates, and never sent. What weighs above OVERDUE (a drop) keeps its
 * weight: it goes first.
 */
function owedShares(session: Session, owed: readonly Weighted<Proposal>[]): Weighted<Proposal>[] {
  if (owed.some((o) => o.weight > OVERDUE)) return [...owed];
  const cellsOf = (o: Weighted<Proposal>) =>
    o.value.cells.filter((c) => createOverdue(session, c) || raceOverdue(session, c));
  const offers = new Map<string, number>();
  for (const o of owed) for (const c of cellsOf(o)) offers.set(c, (offers.get(c) ?? 0) + 1);
  // A create owed for no cell of its own (the first conversation) is a share of its own.
  return owed.map((o) => {
    const cells = cellsOf(o);
    const weight = cells.length === 0 ? 1 : cells.reduce((sum, c) => sum + 1 / (offers.get(c) ?? 1), 0);
    return { value: o.value, weight };
  });
}

/** The next command, drawn among those the state enables; undefined when nothing is left to do. */
export function nextCommand(
  g: fc.GeneratorValue,
  session: Session,
): { readonly command: Command; readonly offered: readonly string[] } | undefined {
  // Whether shapes or client behaviours still wait: one answer for every proposal of this step.
  const pending = shapesPending(session);
  const all = proposals(session)
    .map((p) => ({ value: p, weight: weightOf(session, p, pending) }))
    .filter((o) => o.weight > 0);
  if (all.length === 0) return undefined;
  // A free request that may still meet a cell goes first, three times in four: it costs the
  // service nothing, and among hundreds of free requests that meet nothing new, the few new ones
  // were drawn too seldom (sequences ended with a dozen free transitions never tried).
  const freeAndNew = all.filter((o) => o.value.charged === 0 && o.value.cells.some((c) => unmetStill(session, c)));
  // Without a live conversation of the primary agent, the free requests of every other identity
  // wait for one: it goes first, while the budget leaves one over (drawn at the odds of any create,
  // sequences spent their last creates elsewhere and left eight such cells unmet).
  const opening = primaryAgentWanted(session)
    ? all.filter((o) => o.value.startsNeededOwner === true && o.value.charged < session.createsLeft)
    : [];
  // A key sent again while its state lasts goes first always while its cell is unmet: a replay or
  // reuse of a continued conversation's earlier key, a dropped stream's key on each endpoint. Either
  // state lasts only until a race deletes the conversation, and overdue races took it before the
  // key was sent again (seeds 5002 and 866821950 left two and three such cells; seed 22008 deleted a
  // dropped stream's conversation before its key went to the stream again).
  const keysAgainFirst = freeAndNew.filter((o) =>
    o.value.cells.some(
      (c) => (c.includes("/completed-then-continued/") || c.startsWith("client:")) && unmetStill(session, c),
    ),
  );
  // Once a create is owed, the budget goes to what is owed only. Drawn among every proposal, an
  // overdue race at 10,000 lost to the sum of hundreds of free requests and dozens of creates of
  // lesser weight: seed 22009 left a delete during generation owed through its last six creates.
  const owed = all.filter((o) => o.value.charged > 0 && o.weight >= OVERDUE);
  const options =
    opening.length > 0
      ? opening
      : keysAgainFirst.length > 0
        ? keysAgainFirst
        : freeAndNew.length > 0 && g(() => fc.nat(3)) > 0
          ? freeAndNew
          : owed.length > 0
            ? owedShares(session, owed)
            : all;
  // A proposal whose inputs turn out impossible (no such key any more) yields nothing: draw again, a bounded number of times.
  for (let attempt = 0; attempt < 5; attempt++) {
    const proposal = pickWeighted(g, options);
    const command = proposal.build(g);
    if (command !== undefined) return { command, offered: attempted(proposal.cells, command) };
  }
  return undefined;
}
