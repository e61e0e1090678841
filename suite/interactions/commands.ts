/**
 * The interaction property's commands, as plain data that fast-check generates. A command names
 * what to do, not the ids it acts on: conversations are slots (the first or the second
 * conversation of the sequence), keys are picks among the keys used so far, so any list of
 * commands can run. A counterexample shows the operations they sent, not the commands.
 *
 * The episodes follow the bugs that live between requests: continuations of one conversation at
 * once, one key on both endpoints at once, a delete while an exchange is being generated, a replay
 * after later turns or after a delete, a page parameter without its partner, other scopes.
 */
import fc from "fast-check";
import type { Endpoint } from "../model/operation.ts";

export type Slot = 0 | 1;
/** Which earlier key: the n-th used (modulo how many there are), or the first or last of a slot's conversation. */
export type KeyPick = number | { readonly slot: Slot; readonly which: "first" | "last" };
export type Foreigner = "otherAgent" | "otherKey";

/** One request of a command (a parallel group has several). */
export type Request =
  /**
   * Continue the slot's conversation, or start it when the slot is empty; `continuing` prefers
   * the other slot's conversation to starting one.
   */
  | { readonly kind: "exchange"; readonly slot: Slot; readonly endpoint: Endpoint; readonly continuing?: boolean }
  /** Send an earlier key again with its payload: any key, or the first or last of a slot's conversation. */
  | { readonly kind: "replay"; readonly pick: KeyPick; readonly endpoint: Endpoint }
  /** Send an earlier key again with another message. */
  | { readonly kind: "conflict"; readonly pick: number; readonly endpoint: Endpoint }
  | { readonly kind: "list"; readonly slot: Slot; readonly page?: number | undefined; readonly pageSize?: number | undefined }
  | { readonly kind: "delete"; readonly slot: Slot }
  /** Another agent or key acting on the slot's conversation. */
  | { readonly kind: "foreign"; readonly slot: Slot; readonly who: Foreigner; readonly action: "list" | "delete" | "continue"; readonly endpoint: Endpoint };

export type Command =
  | { readonly kind: "one"; readonly request: Request; readonly lane: number }
  /** Requests at once, each on its own connection; `sameKey` sends every exchange of the group under one key. */
  | { readonly kind: "parallel"; readonly requests: readonly Request[]; readonly sameKey: boolean };

export const LANES = 4;

const slot = fc.constantFrom<Slot>(0, 0, 1);
const endpoint = fc.constantFrom<Endpoint>("plain", "stream");
const pick = fc.nat(7);
const foreigner = fc.constantFrom<Foreigner>("otherAgent", "otherKey");

const replay = fc.record({ kind: fc.constant("replay" as const), pick, endpoint });
const conflict = fc.record({ kind: fc.constant("conflict" as const), pick, endpoint });
/** Any subset of the page parameters, with sizes that split a short conversation over pages. */
const list = fc.record(
  {
    kind: fc.constant("list" as const),
    slot,
    page: fc.option(fc.integer({ min: 1, max: 3 }), { nil: undefined }),
    pageSize: fc.option(fc.constantFrom(1, 2, 3, 5, 50, 100), { nil: undefined }),
  },
  { requiredKeys: ["kind", "slot"] },
);
const foreign = fc.record({
  kind: fc.constant("foreign" as const),
  slot,
  who: foreigner,
  action: fc.constantFrom("list" as const, "delete" as const, "continue" as const),
  endpoint,
});

const one = (request: fc.Arbitrary<Request>, weight: number) => ({
  arbitrary: fc.record({ kind: fc.constant("one" as const), request, lane: fc.nat(LANES - 1) }),
  weight,
});

const parallel = (requests: fc.Arbitrary<Request[]>, sameKey: boolean, weight: number) => ({
  arbitrary: fc.record({ kind: fc.constant("parallel" as const), requests, sameKey: fc.constant(sameKey) }),
  weight,
});

/** What costs no create on a conforming target: reads, replays, refused reuses and other scopes' attempts. */
const freeMixed = fc.array(fc.oneof(replay, list, foreign), { minLength: 2, maxLength: 3 });

/** Between episodes: commands that cost no create on a conforming target. */
const filler: fc.Arbitrary<Command> = fc.oneof(
  one(replay, 3),
  one(conflict, 1),
  one(list, 2),
  one(foreign, 2),
  parallel(freeMixed, false, 2),
);

/**
 * Episodes: the few commands each class of interaction bug needs to show, with their details
 * (slot, endpoints, connections, parameters) left to fast-check. Every sequence holds each
 * episode once, in a random order, between random commands, so a handful of creates meets every
 * class: creates are what a paid target charges for, and what the property has least of.
 */
const oneOn = (request: Request, lane: number): Command => ({ kind: "one", request, lane });
const lane = fc.nat(LANES - 1);

/**
 * Three continuations at once, two plain and one streamed (in any order): two plain turns race
 * each other, and both race the stream held open (a lost update on either path).
 */
const concurrentTurns = fc.tuple(slot, fc.shuffledSubarray<Endpoint>(["plain", "plain", "stream"], { minLength: 3, maxLength: 3 })).map(([s, endpoints]): Command[] => [
  { kind: "parallel", requests: endpoints.map((e): Request => ({ kind: "exchange", slot: s, endpoint: e, continuing: true })), sameKey: false },
]);

/** One key on both endpoints at once (at most one effect; losers 409 or the replay). */
const sameKeyRace = fc.tuple(slot, fc.shuffledSubarray<Endpoint>(["plain", "stream", "plain"], { minLength: 3, maxLength: 3 })).map(([s, endpoints]): Command[] => [
  { kind: "parallel", requests: endpoints.map((e): Request => ({ kind: "exchange", slot: s, endpoint: e })), sameKey: true },
]);

/** A delete while a streamed exchange of the conversation is being generated. */
const deleteDuringExchange = fc.tuple(slot, endpoint).map(([s, e]): Command[] => [
  { kind: "parallel", requests: [{ kind: "exchange", slot: s, endpoint: e, continuing: true }, { kind: "delete", slot: s }], sameKey: false },
]);

/**
 * The conversation's first key replayed after later turns, on both endpoints, the plain replay
 * on two neighbouring connections (so at least one is not the connection that wrote it).
 */
const replayAfterLaterTurns = fc.tuple(slot, lane).map(([s, l]): Command[] => [
  oneOn({ kind: "replay", pick: { slot: s, which: "first" }, endpoint: "plain" }, l),
  oneOn({ kind: "replay", pick: { slot: s, which: "first" }, endpoint: "plain" }, (l + 1) % LANES),
  oneOn({ kind: "replay", pick: { slot: s, which: "first" }, endpoint: "stream" }, (l + 2) % LANES),
]);

/** Listings with each subset of the page parameters. */
const pageParameters = fc.tuple(slot, fc.integer({ min: 1, max: 2 }), fc.constantFrom(1, 2, 3), lane).map(([s, page, size, l]): Command[] => [
  oneOn({ kind: "list", slot: s, page }, l),
  oneOn({ kind: "list", slot: s, pageSize: size }, l),
  oneOn({ kind: "list", slot: s, page, pageSize: size }, l),
]);

/** The other agent and the other key on every endpoint of the conversation. */
const otherScopes = fc.tuple(slot, foreigner, endpoint, lane).map(([s, who, e, l]): Command[] => [
  oneOn({ kind: "foreign", slot: s, who, action: "continue", endpoint: e }, l),
  oneOn({ kind: "foreign", slot: s, who: who === "otherKey" ? "otherAgent" : "otherKey", action: "continue", endpoint: e === "plain" ? "stream" : "plain" }, l),
  oneOn({ kind: "foreign", slot: s, who, action: "list", endpoint: e }, l),
  oneOn({ kind: "foreign", slot: s, who, action: "delete", endpoint: e }, l),
]);

/** A streamed turn alone, continuing a conversation already read (timestamps and storage on the stream path). */
const streamedTurn = fc.tuple(slot, lane).map(([s, l]): Command[] => [oneOn({ kind: "exchange", slot: s, endpoint: "stream", continuing: true }, l)]);

/** A conversation deleted, then its last key replayed. */
const replayAfterDelete = fc.tuple(slot, endpoint, lane).map(([s, e, l]): Command[] => [
  oneOn({ kind: "delete", slot: s }, l),
  oneOn({ kind: "replay", pick: { slot: s, which: "last" }, endpoint: e }, (l + 1) % LANES),
]);

/** Episodes that need nothing but a live conversation, run in a random order. */
const middle = fc.tuple(concurrentTurns, sameKeyRace, pageParameters, otherScopes, streamedTurn);

/**
 * A sequence: a conversation started; the middle episodes in a random order; then the replays
 * after those later turns, the delete during an exchange and the replay after it; each episode
 * after a few random commands that cost no create. Seven creates cover every episode once.
 */
export const commands: fc.Arbitrary<Command[]> = fc
  .tuple(endpoint, middle, replayAfterLaterTurns, deleteDuringExchange, replayAfterDelete, fc.array(fc.array(filler, { maxLength: 2 }), { minLength: 8, maxLength: 8 }))
  .chain(([e, parts, replays, deleting, afterDelete, fillers]) =>
    fc.shuffledSubarray([...parts.keys()], { minLength: parts.length, maxLength: parts.length }).map((order): Command[] => {
      const episodes = [...order.map((i) => parts[i] ?? []), replays, deleting, afterDelete];
      return [
        { kind: "one", request: { kind: "exchange", slot: 0, endpoint: e }, lane: 0 },
        ...episodes.flatMap((episode, n) => [...(fillers[n] ?? []), ...episode]),
      ];
    }),
  );

/** Creates one sequence spends on a conforming target. */
export const CREATES_PER_SEQUENCE = 7;
