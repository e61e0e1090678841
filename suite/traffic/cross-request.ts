/**
 * The traffic's judgements across requests (replays, conflicts and races on one key, deletes,
 * listings against what was written, other agents' attempts) are the executable model's
 * (suite/model), the one the interaction property runs. Traffic is not a planned history, so
 * four things are settled here before the model sees an operation:
 * - Order: exchanges end in any order; operations reach the model in the order they were sent
 *   (in-order.ts), so requests that overlapped are judged as overlapping.
 * - Partitions: each conversation, with the keys that wrote to it, is a history of its own, as
 *   porcupine partitions a keyed model: a violation ends the judging of that conversation only,
 *   and a thousand conversations cost what one does. What one showed of the service's own
 *   choices binds every later one (service-choices.ts), as in the property's single history.
 * - Identities: a caller is a key and an agent. Traffic cannot tell which keys share a channel,
 *   so another key's request about a conversation is the owner's when the service accepted it,
 *   and is not judged when refused; another agent is another scope whatever the key.
 * - Lag: a read begun within --settle-ms of a write to its conversation may show the service's
 *   lag behind that write. When only such a read contradicts the model, it is left out and its
 *   verdict held: a later read, the conversation's delete or the end of the traffic decides it,
 *   or it is reported undecided (held-verdicts.ts); it is never a pass.
 */
import type { RequirementId } from "../../requirements/catalog.ts";
import type { HttpResult, StreamResult } from "../http/types.ts";
import {
  flush,
  initialState,
  mapWorlds,
  observe,
  withGroup,
  worldsOf,
  type ModelState,
  type Observation,
} from "../model/model.ts";
import type { Caller, Op } from "../model/operation.ts";
import { describeViolation, type Violation } from "../model/violation.ts";
import { conversationKey, EMPTY_WORLD, keyId, withConversation, type KeyRecord } from "../model/world.ts";
import type { Classified } from "./classify.ts";
import {
  afterAgreeingReads,
  decidedAtEnd,
  holdFor,
  undecidedOf,
  UndecidedVerdicts,
  type HeldVerdict,
  type LagKind,
} from "./held-verdicts.ts";
import { InOrder } from "./in-order.ts";
import { modelStartOf, operationOf } from "./model-ops.ts";
import { remember } from "./remember.ts";
import { learnedFrom, UNKNOWN_CHOICES, type ServiceChoices } from "./service-choices.ts";
import type { Recorder, TrafficViolation } from "./recorder.ts";

/** One exchange that is an operation of the spec, judged on its own already. */
export interface SeenOperation {
  readonly c: Classified;
  /** Undefined when the answer did not come whole (cut at the stop, or by the client): an unknown outcome. */
  readonly result: HttpResult | StreamResult | undefined;
  readonly line: string;
}

interface Partition {
  state: ModelState;
  /** Who made the conversation: its scope, as far as traffic shows it. */
  readonly owner: { readonly token: string; readonly agent: string };
  /** A read begun before this instant (model clock) may still show the service's lag behind a write. */
  settledFrom: number;
  /** Reads begun inside that window, among the operations not judged yet. */
  readonly tentative: Set<number>;
  /** When the latest writes ended (#n → model clock), to time a held read from the write it is about. */
  readonly writeEnds: Map<number, number>;
  /** Verdicts held back for lag, until something decides them. */
  held: HeldVerdict[];
  /**
   * Each operation not judged yet (the group being built): its line and answer, the evidence of a
   * violation, and the requirements it can show, counted as observed once its verdict stands.
   */
  readonly pending: Map<
    number,
    {
      readonly line: string;
      readonly evidence: HttpResult | StreamResult | undefined;
      readonly shows: readonly RequirementId[];
    }
  >;
  /** Caller and key of every create fed, with a key: a later refusal of that key is a verdict. */
  readonly keys: Set<string>;
  /**
   * After a write the model could not explain, what the conversation holds, and whether it
   * exists, are unknown: only replays and conflicts of the keys it knows are still judged.
   */
  contentsUnknown: boolean;
  /** It grew too uncertain (too many possible states, too many requests at once): nothing more is judged in it. */
  closed: boolean;
  /**
   * Its listings, read as settled, showed that both endpoints share a key; only their reading as
   * the service's lag kept the other reading. Its delete decides, as it decides held verdicts.
   */
  keysSharedUnlessLag: boolean;
}

const HELD_AS_LAG = new Set(["DEL-1", "DEL-3"]);
const SHOWN_AS_LAG = new Set(["RESP-2", "SSE-8"]);

/**
 * A conversation begun before another one showed that both endpoints share a key still holds
 * worlds that scope keys per endpoint: once the service showed it shares them, those go (unless
 * nothing else is left, when a bug of this conversation ruled the spec's reading out). Without
 * this, a replay answered otherwise on the other endpoint passed here as a fresh request, where
 * the interaction property, one history, failed it.
 */
function heldToKeyScope(state: ModelState, known: ServiceChoices): ModelState {
  if (known.keyScope !== "shared") return state;
  const branches = state.known.worlds;
  if (branches.every((b) => b.state.keyScope === "shared")) return state;
  const kept = branches.filter((b) => b.state.keyScope !== "per-endpoint");
  if (kept.length === 0) return state;
  const worlds = kept.map((b) =>
    b.state.keyScope === "shared" ? b : { ...b, state: { ...b.state, keyScope: "shared" as const } },
  );
  return { ...state, known: { ...state.known, worlds } };
}

/**
 * Whether a read's violation may be the service's lag: a delete not applied yet, or an exchange a
 * listing lacks, unless it shows that exchange's text changed or the exchange stored in part (its
 * message listed without the rest). The model reads a lagging listing as showing an exchange whole
 * or not at all, and the suite fails a partial one at once: held here, the verdict on a stream whose
 * client left and whose answer was never stored stayed undecided through the proxy.
 */
function lagOf(failure: Violation, failing: Op): LagKind | undefined {
  if (HELD_AS_LAG.has(failure.requirement)) return "deleted";
  const storedOtherwise = failure.shownChanged === true || failure.inPart !== undefined;
  return SHOWN_AS_LAG.has(failure.requirement) && failing.kind === "list" && !storedOtherwise ? "unlisted" : undefined;
}

/**
 * Conversations and keys remembered; past this the oldest are forgotten (their later requests
 * are not judged across). About 6.5 KiB a conversation: some 320 MiB at the cap, what the judge
 * held before it judged with the model (benchmark: `npm run bench -- --only proxy`).
 */
const MAX_REMEMBERED = 50_000;

/** Keys remembered: a conversation is written under several. */
const MAX_KEYS = 4 * MAX_REMEMBERED;

/** Writes timed per conversation: a held read is about a recent one. */
const WRITES_TIMED = 64;

const isWrite = (op: Op) => op.outcome.type !== "refused" && (op.kind === "delete" || op.kind === "create");
const isRead = (op: Op) => op.kind !== "create" || op.conversationId !== null;
const answeredId = (op: Op) =>
  op.kind === "create" && op.outcome.type === "ok" ? op.outcome.value.conversationId : undefined;

export class CrossRequestJudge {
  /** Verdicts held back for lag that nothing decided. */
  readonly undecided = new UndecidedVerdicts();
  private readonly byConversation = new Map<string, Partition>();
  private readonly byKey = new Map<string, Partition>();
  private readonly partitions = new Map<Partition, true>();
  /** Where the model's clock begins: the start of the first exchange judged. */
  private origin: number | undefined;
  /** Partitions with operations not judged yet. */
  private readonly open = new Set<Partition>();
  /** The service's own choices, once a conversation's history showed them: every later one starts from them. */
  private choices: ServiceChoices = UNKNOWN_CHOICES;
  /** Keys in first-seen order, so callers are named "key 2", never by the key itself. */
  private readonly tokens = new Map<string, number>();
  private readonly inOrder = new InOrder<SeenOperation>((seen) => this.judge(seen));

  constructor(
    private readonly record: Recorder,
    private readonly settleMs: number,
  ) {}

  /** Every exchange the judge saw, as it ended; `seen` undefined for one that is no operation of the spec. */
  arrived(sequence: number, seen: SeenOperation | undefined): void {
    this.inOrder.arrived(sequence, seen);
  }

  /** The traffic is over: what waited is judged, then every verdict still held is decided, or found undecided. */
  finish(): void {
    this.inOrder.drain();
    for (const p of this.partitions.keys()) {
      if (!p.closed && p.state.search.group.length > 0) p.state = this.settle(p, p.state);
      if (p.held.length === 0) continue;
      if (p.closed || p.contentsUnknown) {
        const why = p.state.search.undecided ?? "a write it could not explain";
        this.undecided.add(
          undecidedOf(
            p.held,
            () => `the model stopped judging this conversation (${why}), so no later read of it decided this`,
          ),
        );
      } else this.decide(p, "the end of the traffic");
      p.held = [];
    }
  }

  /** No later read of the conversation can come, or be judged: what it held is decided (held-verdicts.ts). */
  private decide(p: Partition, ended: string): void {
    const { against, undecided } = decidedAtEnd(p.held, this.settleMs, ended);
    against.forEach((v) => this.record.release(v));
    this.undecided.add(undecided);
    p.held = [];
  }

  private judge(seen: SeenOperation): void {
    const { c, result, line } = seen;
    this.origin ??= c.exchange.startedAt;
    // Nothing sent from now on can overlap what ended before this began.
    this.settleBefore(modelStartOf(c, this.origin));
    const partition = this.partitionOf(c);
    const owner = partition?.owner ?? { token: c.token ?? "", agent: c.agent };
    const who = this.callerOf(owner, c, result?.status ?? 0);
    if (who === undefined || partition?.closed === true) return;
    const key = c.idempotencyKey === undefined ? undefined : `${who}\u0000${c.idempotencyKey}`;
    const op = operationOf({
      c,
      result,
      index: c.exchange.sequence,
      origin: this.origin,
      who,
      refusalShows: refusalShows(partition, who, key, c.conversationId),
    });
    if (op === undefined) return;
    // After a write the model could not explain, only its keys are still judged.
    if (partition?.contentsUnknown === true && !(op.kind === "create" && key !== undefined && partition.keys.has(key)))
      return;
    const id = answeredId(op);
    // A new conversation's first answer: its partition is the conversation it names (another one's, should it name one already made: RESP-3).
    const p =
      partition ??
      (id === undefined ? undefined : this.byConversation.get(conversationKey(id))) ??
      this.newPartition(owner, op);
    if (p === undefined || p.closed) return;
    p.state = heldToKeyScope(p.state, this.choices);
    this.feed(p, op, line, result);
    if (key !== undefined && op.kind === "create") {
      p.keys.add(key);
      remember(this.byKey, `${c.token}\u0000${c.agent}\u0000${c.idempotencyKey}`, p, MAX_KEYS);
    }
    if (id !== undefined && !this.byConversation.has(conversationKey(id)))
      remember(this.byConversation, conversationKey(id), p, MAX_REMEMBERED);
  }

  /**
   * Operations reach the judge in the order they were sent: a group that ended before this
   * one began can grow no more, in any partition, and is judged now, so what it showed (the
   * service's key scope) counts for what follows, and a live proxy reports it at once.
   */
  private settleBefore(start: number): void {
    for (const p of this.open) {
      if (p.closed || p.state.search.group.length === 0) this.open.delete(p);
      else if (p.state.search.groupEnd <= start) {
        p.state = this.settle(p, p.state);
        this.open.delete(p);
      }
    }
  }

  /** The history an exchange belongs to: its key's, else its conversation's; undefined for a new conversation. */
  private partitionOf(c: Classified): Partition | undefined {
    const byKey =
      c.idempotencyKey === undefined
        ? undefined
        : this.byKey.get(`${c.token}\u0000${c.agent}\u0000${c.idempotencyKey}`);
    return byKey ?? (c.conversationId === undefined ? undefined : this.byConversation.get(c.conversationId));
  }

  /** A create about no conversation the traffic made (new, or made before it began): a history of its own. */
  private newPartition(owner: Partition["owner"], op: Op): Partition | undefined {
    if (op.kind !== "create") return undefined;
    const p: Partition = {
      state: initialState({ ...EMPTY_WORLD, ...this.choices }),
      owner,
      settledFrom: -Infinity,
      tentative: new Set(),
      writeEnds: new Map(),
      held: [],
      pending: new Map(),
      keys: new Set(),
      contentsUnknown: false,
      closed: false,
      keysSharedUnlessLag: false,
    };
    // The oldest conversation is about to be forgotten: what it held can no longer be decided.
    const oldest = this.partitions.size >= MAX_REMEMBERED ? this.partitions.keys().next().value : undefined;
    if (oldest !== undefined && oldest.held.length > 0) {
      this.undecided.add(
        undecidedOf(
          oldest.held,
          () =>
            `the conversation was forgotten (more than ${MAX_REMEMBERED} remembered), so no later read of it decided this`,
        ),
      );
      oldest.held = [];
    }
    remember(this.partitions, p, true, MAX_REMEMBERED);
    if (op.conversationId !== null)
      remember(this.byConversation, conversationKey(op.conversationId), p, MAX_REMEMBERED);
    return p;
  }

  /**
   * The caller as the model names it: "agent A (key 1)". Another agent is another scope; another
   * key of the owner's agent may share its channel: its request counts as the owner's when the
   * service accepted it, and is left out when refused or undecided.
   */
  private callerOf(owner: Partition["owner"], c: Classified, status: number): Caller | undefined {
    const name = (token: string, agent: string) => {
      let n = this.tokens.get(token);
      if (n === undefined) remember(this.tokens, token, (n = this.tokens.size + 1), MAX_REMEMBERED);
      return `agent ${agent} (key ${n})`;
    };
    // No key at all is refused (judged per exchange); accepted, it acted on the owner's scope.
    const token = c.token ?? "";
    if (c.agent !== owner.agent || token === owner.token) return name(token, c.agent);
    return status >= 200 && status < 300 ? name(owner.token, owner.agent) : undefined;
  }

  private feed(p: Partition, sent: Op, line: string, evidence: HttpResult | StreamResult | undefined): void {
    // Whatever ended before `op` began is judged already (settleBefore): `op` overlaps the group it joins.
    const state = p.state;
    // What the service answered --settle-ms before a listing began shows in it or never.
    const op: Op = sent.kind === "list" ? { ...sent, settledBefore: sent.start - this.settleMs } : sent;
    const shows = couldShow(state, op);
    const observed = observe(state, op);
    // What a page shows by itself is judged per exchange (service-rules.ts); such a page is left out here.
    if (observed.state.search.failed !== undefined) {
      p.state = state;
      return;
    }
    p.state = observed.state;
    this.open.add(p);
    p.pending.set(op.index, { line, evidence, shows });
    if (isRead(op) && op.start < p.settledFrom) p.tentative.add(op.index);
    if (isWrite(op)) {
      p.settledFrom = Math.max(p.settledFrom, op.end + this.settleMs);
      remember(p.writeEnds, op.index, op.end, WRITES_TIMED);
    }
  }

  /** Judges the group of overlapping operations `state` holds; returns the state to go on from. */
  private settle(p: Partition, state: ModelState): ModelState {
    const group = state.search.group;
    const judgedBefore = !p.closed && !p.contentsUnknown;
    /** A violation of this group stands (not held for lag). */
    let released = false;
    const without = (left: (op: Op) => boolean): Observation =>
      flush(
        withGroup(
          state,
          group.filter((op) => !left(op)),
        ),
      );
    let outcome = flush(state);
    /** Operations whose verdict stands: a read left out as the service's lag showed nothing. */
    let judged = group;
    const failure = outcome.state.search.failed;
    // Listings inside the window may show the conversation before the writes that ended within
    // --settle-ms of them: the worlds of those readings too, so a lagging page that fits a wrong
    // lesson (four messages of three exchanges, one each) does not teach it alone.
    const lagging = (op: Op) => op.kind === "list" && p.tentative.has(op.index);
    // Judged again only on the paths that go on from it, at most once per group.
    const orLagged = (plain: Observation): Observation => {
      if (!group.some(lagging)) return plain;
      const lagged = flush(
        withGroup(
          state,
          group.map((op) => (lagging(op) ? { ...op, lagsFrom: op.start - this.settleMs } : op)),
        ),
      );
      return lagged.state.search.failed === undefined && lagged.state.search.undecided === undefined ? lagged : plain;
    };
    if (failure !== undefined) {
      const failing = group.find((op) => op.index === failure.ops.at(-1));
      const lag = failing !== undefined && p.tentative.has(failing.index) ? lagOf(failure, failing) : undefined;
      const tentative = lag === undefined ? undefined : without((op) => p.tentative.has(op.index));
      if (
        lag !== undefined &&
        failing !== undefined &&
        tentative !== undefined &&
        tentative.state.search.failed === undefined
      ) {
        // Only a read inside the window contradicted the model, as the service's lag would: held until something decides it.
        const about = failure.ops[0] ?? failing.index;
        holdFor(
          p.held,
          lag,
          `${failure.requirement} #${about}`,
          this.violationOf(p, failure),
          p.writeEnds.get(about) ?? p.settledFrom - this.settleMs,
          failing.start,
        );
        outcome = orLagged(tentative);
        judged = group.filter((op) => !p.tentative.has(op.index));
      } else {
        released = true;
        this.release(p, failure);
        // A read past the window judged what earlier reads held for this requirement.
        p.held = p.held.filter((h) => h.violation.requirement !== failure.requirement);
        // An exchange a settled listing shows lost: the model forgets it and judges the rest.
        const lost =
          failing?.kind === "list" && failure.lost !== undefined
            ? withoutExchange(state, failing.conversationId, failure.lost)
            : undefined;
        const forgotten = lost === undefined ? undefined : flush(lost);
        if (forgotten !== undefined && forgotten.state.search.failed === undefined) outcome = forgotten;
        else {
          // What the model could not explain is left out and judging goes on; after a write, with its keys alone.
          const goOn = failing === undefined ? undefined : without((op) => op.index === failing.index);
          if (goOn !== undefined && goOn.state.search.failed === undefined) outcome = goOn;
          else p.closed = true;
          // A continuation answered as another conversation left this one alone; any other write
          // may have changed it, and a listing short of an exchange it cannot name leaves it unknown.
          const leftAlone = failing?.kind === "create" && SHOWN_AS_LAG.has(failure.requirement);
          if (failing !== undefined && !leftAlone && (failing.kind !== "list" || SHOWN_AS_LAG.has(failure.requirement)))
            p.contentsUnknown = true;
          judged = group.filter((op) => op !== failing);
        }
      }
    } else {
      const settled = outcome;
      outcome = orLagged(outcome);
      if (outcome !== settled && sharesKeys(settled)) p.keysSharedUnlessLag = true;
      // A later read agrees with the model: what it answers was the service's lag.
      if (p.held.length > 0) p.held = afterAgreeingReads(p.held, group, isRead);
    }
    // A delete answered 2xx ends the conversation, whatever the model made of it: no read can show what the earlier ones lacked any more.
    const ended = group.find((op) => op.kind === "delete" && op.outcome.type === "ok");
    // No read can show the other reading's exchanges any more: the keys were shown shared.
    if (ended !== undefined && p.keysSharedUnlessLag && this.choices.keyScope === "unknown")
      this.choices = { ...this.choices, keyScope: "shared" };
    if (ended !== undefined && p.held.length > 0)
      this.decide(p, `the conversation's delete, ${p.pending.get(ended.index)?.line ?? `#${ended.index}`}`);
    for (const op of judged)
      for (const requirement of p.pending.get(op.index)?.shows ?? []) this.record.observed(requirement);
    for (const warning of outcome.violations) if (warning !== outcome.state.search.failed) this.release(p, warning);
    if (outcome.state.search.undecided !== undefined) p.closed = true;
    // A violation stopped the model judging the conversation, or what it holds: later reads can no
    // longer take back what earlier ones held (one of unknown contents agrees with anything), so
    // it is decided now, as at the end of the traffic. A search that grew undecided leaves it undecided.
    if (judgedBefore && released && (p.closed || p.contentsUnknown) && p.held.length > 0) {
      const at = failure?.ops.at(-1);
      const line = at === undefined ? "" : `, ${lineOf(p, at)}`;
      this.decide(p, `the model stopped judging this conversation (a write it could not explain${line})`);
    }
    this.choices = learnedFrom(this.choices, worldsOf(outcome.state));
    for (const op of group) {
      p.pending.delete(op.index);
      p.tentative.delete(op.index);
    }
    return outcome.state;
  }

  private release(p: Partition, violation: Violation): void {
    this.record.release(this.violationOf(p, violation));
  }

  /** The model's violation as the traffic's, on the exchange it could not explain. */
  private violationOf(p: Partition, violation: Violation): TrafficViolation {
    const last = p.pending.get(violation.ops.at(-1) ?? -1);
    const { message, expected } = describeViolation(violation);
    const detail = expected === undefined ? message : `${message}; expected ${expected}`;
    return this.record.holdViolation(
      violation.requirement,
      lineOf(p, violation.ops.at(-1)),
      detail,
      last?.evidence === undefined ? [] : [last.evidence.transcript],
    );
  }
}

/** Whether every world still possible reads keys as shared by both endpoints. */
const sharesKeys = (observation: Observation) => worldsOf(observation.state).every((w) => w.keyScope === "shared");

/** An operation as the judge names its exchange ("POST … → 200 (#9)"), or by its number once the exchange is gone. */
const lineOf = (p: Partition, index: number | undefined) => p.pending.get(index ?? -1)?.line ?? `#${index}`;

/**
 * Whether a refusal of this create is a verdict: its key was used before (a refused replay), or
 * it names a conversation of another scope or a deleted one, which must be refused. Otherwise
 * its body may have been invalid in a way traffic cannot tell, and the refusal shows nothing.
 */
function refusalShows(
  p: Partition | undefined,
  who: Caller,
  key: string | undefined,
  conversationId: string | undefined,
): boolean {
  if (p === undefined) return false;
  if (key !== undefined && p.keys.has(key)) return true;
  if (conversationId === undefined) return false;
  const found = worldsOf(p.state).flatMap((w) => w.conversations.get(conversationKey(conversationId)) ?? []);
  return found.some((c) => c.owner !== who || c.deletedBy !== undefined);
}

/** `state` with the exchange of operation `lost` taken out of the conversation, in every world; undefined when no world has it. */
function withoutExchange(state: ModelState, conversationId: string, lost: number): ModelState | undefined {
  const id = conversationKey(conversationId);
  if (!worldsOf(state).some((w) => w.conversations.get(id)?.exchanges.some((e) => e.op === lost))) return undefined;
  return mapWorlds(state, (w) => {
    const conversation = w.conversations.get(id);
    return conversation === undefined
      ? w
      : withConversation(w, { ...conversation, exchanges: conversation.exchanges.filter((e) => e.op !== lost) });
  });
}

/**
 * The requirements an operation can show, given what the model holds before it: a key used
 * before (a replay, a conflict, a race), a conversation of another agent, one deleted, or a
 * listing of exchanges the model knows. Counted as observed, whatever the verdict.
 */
function couldShow(state: ModelState, op: Op): RequirementId[] {
  const shown = new Set<RequirementId>();
  const worlds = worldsOf(state);
  const conversations = (id: string | null) =>
    id === null ? [] : worlds.flatMap((w) => w.conversations.get(conversationKey(id)) ?? []);
  const found = conversations(op.conversationId);
  if (op.kind === "create") {
    const key = op.key;
    const earlier: { start: number; end: number; payload: string; raw: string | undefined }[] =
      key === null
        ? []
        : [
            ...worlds
              .flatMap((w) =>
                [keyId(op.who, key), keyId(op.who, key, "plain"), keyId(op.who, key, "stream")].flatMap(
                  (id) => w.keys.get(id) ?? [],
                ),
              )
              .map((r: KeyRecord) => ({ start: r.at, end: r.end, payload: r.payload, raw: r.raw })),
            ...state.search.group.flatMap((g) =>
              g.kind === "create" && g.who === op.who && g.key === key
                ? [{ start: g.start, end: g.end, payload: g.payload, raw: g.raw }]
                : [],
            ),
          ];
    for (const e of earlier) {
      if (e.start < op.end && op.start < e.end) (["IDEM-5", "IDEM-9"] as const).forEach((id) => shown.add(id));
      else if (e.payload !== op.payload) shown.add(op.endpoint === "stream" ? "IDEM-4" : "IDEM-3");
      else {
        shown.add(op.endpoint === "stream" ? "IDEM-4" : "IDEM-1");
        if (e.raw !== op.raw) shown.add("IDEM-8");
      }
    }
    if (found.some((c) => c.owner !== op.who)) shown.add("SCOPE-4");
    else if (found.some((c) => c.deletedBy !== undefined)) shown.add("DEL-3");
    if (earlier.length === 0 && op.conversationId === null && op.outcome.type === "ok") shown.add("RESP-3");
    return [...shown];
  }
  if (found.some((c) => c.owner !== op.who)) return [op.kind === "list" ? "SCOPE-1" : "SCOPE-2"];
  if (found.some((c) => c.deletedBy !== undefined)) return ["DEL-1"];
  if (op.kind !== "list" || op.outcome.type !== "ok") return [];
  for (const c of found) {
    for (const e of c.exchanges) shown.add(e.endpoint === "stream" ? "SSE-8" : "RESP-2");
    for (const s of c.suspects)
      if (s.requirement.startsWith("IDEM"))
        shown.add(s.requirement === "IDEM-4" ? "IDEM-4" : s.requirement === "IDEM-5" ? "IDEM-5" : "IDEM-2");
    if (c.updatedAt !== undefined && c.exchanges.length > 0) shown.add("LIST-8");
  }
  return [...shown];
}
