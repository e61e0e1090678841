/**
 * What a sequence owes: the experiments that only a create of their own runs, each the one way in
 * for a class of bug (a stream dropped and sent again, a write that lands while an exchange is
 * generated, a key sent again while its first request runs, a long text, a text kind on each
 * endpoint, a reference used again, a near key with the earlier body). Once a third of a
 * sequence's creates are spent (two thirds for a key sent again in flight), each not yet met is
 * owed until it is, or until two tries did not meet it; the walk (walk.ts) then spends its
 * creates on what is owed only.
 */
import type { Session } from "./session.ts";
import { DROP_POINTS, NEAR_MISSES, OWN_REFERENCE_CLASSES } from "./space.ts";

/**
 * How often the walk chose a command for this cell without meeting it. A cell this target never
 * shows (an order its implementation never takes, a transition it refuses before reaching) would
 * otherwise pull as hard after ten tries as before the first, and take creates from every cell
 * still within reach.
 */
export const misses = (session: Session, cell: string) =>
  Math.max(0, session.tried.count(cell) - session.covered.count(cell));

/** A cell not met yet that the walk has not given up on: chosen for it at most twice without meeting it. */
export const unmetStill = (session: Session, cell: string) => !session.covered.has(cell) && misses(session, cell) < 3;

/** The weight of a create the sequence owes (a first conversation, an overdue cell): at least this. */
export const OVERDUE = 10_000;

/** Whether a sequence has spent a third of its creates: past it, a cell only a create of its own meets is overdue. */
const thirdSpent = (session: Session) => session.createsUsed * 3 >= session.createsAllowed;

/**
 * Whether a sequence that has spent a third of its creates has yet to drop a stream that its
 * client then sends again. The client behaviours the spec names (a stream dropped, retried or not)
 * have no other way in than a drop, and a drop competed with dozens of races' arrangements: some
 * sequences of 24 creates dropped none, or only one the client cancelled, and every bug of a
 * dropped stream's retried key went untried. Not after two drops that found the stream already
 * ended (a service that answers at once leaves nothing to drop).
 */
export const dropOverdue = (session: Session) =>
  thirdSpent(session) &&
  !session.keys.some((k) => k.dropped && !k.abandoned) &&
  DROP_POINTS.reduce((sum, point) => sum + misses(session, `client:drop:${point}`), 0) < 2;

/** Input cells owed by their shape alone: a long text, a kind of text or of reference on an endpoint, a reference used again. */
const OWED_INPUT = new RegExp(
  `^inputs:(message:long$|message:[a-z-]+@|external_reference:(reused-in-two-|(${OWN_REFERENCE_CLASSES.join("|")})@))`,
);

/**
 * Whether a cell that only a create of its own meets is still unmet once a third of the creates
 * are spent (each at most twice without meeting it): a long text (a shape a service may refuse,
 * so only a single create takes it), a kind of text the service accepted on one endpoint, not
 * yet sent on the other (and a class of reference), and a reference used again by another conversation. Single creates competed with
 * dozens of races' arrangements: a stream's storage that cuts long texts, and a service that takes
 * a reference for a natural key, went untried.
 */
export const createOverdue = (session: Session, cell: string) =>
  (OWED_INPUT.test(cell) || newNearMissUnmet(session, cell) || turnNearMissUnmet(session, cell)) &&
  !session.covered.has(cell) &&
  thirdSpent(session) &&
  misses(session, cell) < 2;

/**
 * A new conversation under a near miss of an earlier new conversation's key, with its body, while
 * no such create was sent: the only request that shows a key table of new conversations that
 * confuses near keys (a column that cuts them, a collation that folds their case). Offered beside
 * every continuation's races, it went unsent in half the sequences of 24 creates.
 */
const newNearMissUnmet = (session: Session, cell: string) =>
  /^inputs:idempotency-key:near-miss:[a-z-]+\/new\/same-body$/.test(cell) && !newNearMissMet(session);

/**
 * A turn under its key with the case of a letter changed, with its body, on an endpoint where no
 * such turn was sent: the only request that shows a turns table whose collation folds case (the
 * default of common SQL databases) on that endpoint's path. A near miss of another kind does not
 * stand in for it: seeds 22000 and 22006 met a one-character change on the plain endpoint and no
 * case change there, and a case-folding plain table went unseen. Met on one endpoint, it was left
 * unsent on the other in some sequences of 24 creates, where the table that folds keys was the other's.
 */
export const turnNearMissUnmet = (session: Session, cell: string) =>
  /^inputs:idempotency-key:near-miss:case-changed\/continue\/same-body@[a-z]+$/.test(cell) &&
  !session.covered.has(cell);

/** Whether a new conversation was sent under a near miss of any kind of an earlier one's key, with its body. */
export const newNearMissMet = (session: Session) =>
  NEAR_MISSES.some((how) => session.covered.has(`inputs:idempotency-key:near-miss:${how}/new/same-body`));

/**
 * The races in which a write surely lands while an exchange is generated: two exchanges of one
 * conversation with one held on the plain endpoint, or a stream held just after response.created
 * (most of an exchange comes before its first delta), and a delete sent then. Races drawn after
 * completion, or after a delta once a service had finished, were the only ones some sequences
 * ran, and every bug of a write that lands during generation (optimistic locking without a
 * retry, a conversation written back whole over a delete) went untried. And a key sent again
 * while its first request is generated, the race every idempotency layer must answer (409 while
 * in flight): some sequences of 24 creates ran none (seed 18009), and a loser answered 500 went unseen.
 * The same for a key sent to the other endpoint while its first request is generated: a service whose
 * two routes each hold their keys in flight in a table of their own runs both, and only that overlap
 * shows it (the full kill rate missed such a mutant in one run of ten at seeds 18000 and 19000).
 */
const SURELY_IN_FLIGHT = ["held-plain", "held-stream-after-created"];
const keyInFlight = (cls: string) => SURELY_IN_FLIGHT.map((a) => `orderings:${cls}/${a}`);
const REPLAY_IN_FLIGHT = keyInFlight("replay-in-flight-original");
const ONE_KEY_IN_FLIGHT = keyInFlight("one-key-both-endpoints");
interface InFlightRace {
  /** Cells of which one shows the race ran. */
  readonly ran: readonly string[];
  readonly offeredBy: (cell: string) => boolean;
  /** The share of the creates spent before it is overdue: a replay in flight waits for the single creates' shapes (seed 15002 then sent no new conversation under a near key). */
  readonly after: number;
}
const IN_FLIGHT_RACES: readonly InFlightRace[] = [
  ...SURELY_IN_FLIGHT.map((a) => {
    const cell = `orderings:two-exchanges/${a}`;
    return { ran: [cell], offeredBy: (c: string) => c === cell, after: 1 / 3 };
  }),
  {
    // Ran only when the delete was answered before the exchange ended: sent after response.created
    // to a service that generates for 30 ms, a delete slowed by a loaded machine came after the end.
    ran: ["race:delete-exchange-after-created:answered-while-held"],
    offeredBy: (c: string) => c.startsWith("orderings:delete-exchange-after-created/"),
    after: 1 / 3,
  },
  ...[REPLAY_IN_FLIGHT, ONE_KEY_IN_FLIGHT].map((cells) => ({
    ran: cells,
    offeredBy: (c: string) => cells.includes(c),
    after: 2 / 3,
  })),
];

/** Whether the cell offers such a race, still not run once its share of the creates is spent (each tried at most twice). */
export const raceOverdue = (session: Session, cell: string) =>
  misses(session, cell) < 2 &&
  IN_FLIGHT_RACES.some(
    (race) =>
      session.createsUsed >= race.after * session.createsAllowed &&
      race.offeredBy(cell) &&
      !race.ran.some((ran) => session.covered.has(ran)),
  );
