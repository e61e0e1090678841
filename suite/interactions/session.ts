/**
 * One sequence of the property as it runs: the conversations and keys it used, as the client
 * knows them; the history of operations it observed and the model's judgement of them so far;
 * and the cells it covered, which steer what the walk proposes next (walk.ts).
 */
import type { OpenKeyForm } from "../model/key-forms.ts";
import type { Identity, ServiceClient, Transcript } from "../http/types.ts";
import { failedBy, flush, initialState, observe, tookEffectFirst, type ModelState } from "../model/model.ts";
import type { Endpoint, Op, Who } from "../model/operation.ts";
import type { Violation } from "../model/violation.ts";
import type { DropPoint } from "./space.ts";

/** What the property needs of a target: connections, identities, fresh names, the budget. */
export interface InteractionTarget {
  /** Clients with one connection each (at least two). */
  readonly lanes: readonly ServiceClient[];
  readonly identities: {
    readonly primary: Identity;
    readonly otherAgent?: Identity | undefined;
    readonly otherKey?: Identity | undefined;
  };
  message(label: string): string;
  idempotencyKey(label: string): string;
  /** Registers a conversation for deletion at the end of the run. */
  track(conversationId: string, owner: Identity): void;
  /** Creates the budget still allows. */
  remainingCreates(): number;
  /** How long a listing may take to show what happened. */
  readonly settleMs: number;
}

/** What was sent, beyond what the model reads: enough to send it again (confirm.ts). */
export interface Sent {
  readonly body?: Record<string, unknown>;
  /** The run-scoped tag the message starts with (after its leading spaces). */
  readonly tag?: string;
  /** The stream was dropped by the client at this point. */
  readonly dropped?: DropPoint;
}

/** One operation of the history with what a person needs to read it. */
export interface Entry {
  readonly op: Op;
  readonly lane: number;
  readonly method: "POST" | "GET" | "DELETE";
  /** The path and query, without the base URL. */
  readonly path: string;
  /** What came back, in a few words ("200 completed", "409 idempotency_key_in_use", "200 total 4"). */
  readonly answer: string;
  readonly transcript: Transcript | undefined;
  readonly sent?: Sent;
}

/** A conversation the sequence started, as its client knows it. */
export interface ConversationRecord {
  readonly id: string;
  readonly owner: Who;
  deleted: boolean;
  /** Messages sent into it that were answered 2xx, in order (for the same text sent twice, or in another form). */
  readonly messages: string[];
  /** The `total` its latest listing showed. */
  total: number | undefined;
  /**
   * The kinds of text its exchanges stored on each endpoint (`inputs:message:four-byte@plain`)
   * that no complete listing by its owner has read back yet: until one does, a text stored
   * changed goes unseen, so the kind counts as tried on that endpoint only then.
   */
  readonly unread: string[];
}

export type KeyStatus = "in-flight" | "completed" | "unknown-outcome" | "refused";

/** A key the sequence sent, with the body it went with. */
export interface KeyUse {
  readonly key: string;
  readonly who: Who;
  readonly endpoint: Endpoint;
  readonly body: Record<string, unknown>;
  readonly message: string;
  readonly tag: string;
  /** The shape of its body the spec leaves open, if any: sent again, it is held to the same. */
  readonly openShape: string | undefined;
  /** The input cells its body covers once accepted: a retry that is accepted covers them. */
  readonly inputCells: readonly string[];
  status: KeyStatus;
  /** The conversation it continued or started, once known. */
  conversationId: string | undefined;
  /** The client dropped its stream; then whether it sent the key again. */
  dropped: boolean;
  retried: boolean;
  /**
   * The endpoints that answered the key sent again exactly as first written (2xx). A payload
   * written otherwise (its metadata's keys reordered) is sent on an endpoint only after: refused
   * there, it then shows that the writing was refused, not the key (a key a stream handler keeps
   * locked refuses both).
   */
  readonly answeredAsSent: Set<Endpoint>;
  /** The client cancelled it for good: the walk never retries it. */
  readonly abandoned: boolean;
  /** The lane (one connection) its first request went on. */
  readonly lane: number;
}

/**
 * How often the run covered each cell (`dimension:name`): what steers the walk, the rarer first,
 * and what the report counts (a cell covered at least once).
 */
export class Tally {
  readonly #counts = new Map<string, number>();

  add(cells: readonly string[]): void {
    for (const cell of cells) this.#counts.set(cell, (this.#counts.get(cell) ?? 0) + 1);
  }

  count(cell: string): number {
    return this.#counts.get(cell) ?? 0;
  }

  has(cell: string): boolean {
    return this.#counts.has(cell);
  }

  get size(): number {
    return this.#counts.size;
  }

  cells(): ReadonlySet<string> {
    return new Set(this.#counts.keys());
  }
}

export class Session {
  readonly entries: Entry[] = [];
  readonly conversations: ConversationRecord[] = [];
  readonly keys: KeyUse[] = [];
  /**
   * Near keys drawn so far, sent or not: a race builds all its requests before it sends any, and
   * two near-misses drawn for it must not land on one key (a same-key race of another class).
   */
  readonly nearKeysDrawn = new Set<string>();
  /** Forms of key the service refused as a body is refused (the spec names no format): fresh keys keep off them. */
  readonly refusedKeyForms = new Set<OpenKeyForm>();
  /** External references used so far, with who used them. */
  readonly references: {
    readonly value: string;
    readonly who: Who;
    readonly conversationId: string | undefined;
    readonly started: boolean;
  }[] = [];
  /** The model's judgement of the history so far: written only by feeding it (judge) or by a failure found outside it (fail). */
  #model: ModelState = initialState();
  /** Same-key races sent (one key on several requests at once). */
  races = 0;
  failure: Violation | undefined;
  readonly warnings: Violation[] = [];
  #next = 1;
  #creates = 0;

  /** Creates this sequence may spend: its share, and never more than the budget has left when it starts. */
  readonly createsAllowed: number;

  constructor(
    readonly target: InteractionTarget,
    share: number,
    /** The cells the run covered so far, this sequence's included (shared by the run's sequences). */
    readonly covered: Tally = new Tally(),
    /** The cells offered by every command the run's walk chose, met or not (shared like `covered`). */
    readonly tried: Tally = new Tally(),
  ) {
    this.createsAllowed = Math.max(0, Math.min(share, target.remainingCreates()));
  }

  nextIndex(): number {
    return this.#next++;
  }

  identity(who: Who): Identity | undefined {
    const { primary } = this.target.identities;
    if (who === "noKey") return { apiKey: null, agentId: primary.agentId };
    if (who === "unknownKey") return { apiKey: `unissued-${primary.agentId}-key`, agentId: primary.agentId };
    return who === "primary" ? primary : this.target.identities[who];
  }

  /** Takes one create from the sequence's allowance, if it and the run's budget have one left. */
  takeCreate(): boolean {
    // Counted here, not read from the budget: the creates of a group are all taken before any is answered.
    if (this.#creates >= this.createsAllowed) return false;
    this.#creates++;
    return true;
  }

  /** Gives a create back: the target refused it (4xx), which by the spec consumed nothing. */
  returnCreate(): void {
    this.#creates = Math.max(0, this.#creates - 1);
  }

  get createsUsed(): number {
    return this.#creates;
  }

  get createsLeft(): number {
    return this.createsAllowed - this.#creates;
  }

  cover(cells: readonly string[]): void {
    this.covered.add(cells);
  }

  conversation(id: string | null | undefined): ConversationRecord | undefined {
    const lower = id?.toLowerCase();
    return lower === undefined ? undefined : this.conversations.find((c) => c.id.toLowerCase() === lower);
  }

  /** The run's use of `key` by `who`, once an answer to it was recorded. */
  keyUse(key: string, who: Who): KeyUse | undefined {
    return this.keys.find((k) => k.key === key && k.who === who);
  }

  /** Feeds the entries of one command to the model, in the order they were sent. */
  judge(entries: readonly Entry[]): void {
    this.entries.push(...entries);
    if (this.failure !== undefined) return;
    let state = this.#model;
    for (const entry of [...entries].sort((a, b) => a.op.start - b.op.start)) {
      const observed = observe(state, entry.op);
      state = observed.state;
      this.#warn(observed.violations, state.search.failed);
    }
    const flushed = flush(state);
    this.#warn(flushed.violations, flushed.state.search.failed);
    this.#model = flushed.state;
    this.failure = this.#model.search.failed;
  }

  /**
   * Whether reading a listing again could not change the model's verdict on `entry` (for reading a
   * listing until it settles): the model accepts it, or fails it by a text the service stored
   * changed, which no lag shows and no later read takes back.
   */
  settles(entry: Entry): boolean {
    const observed = observe(this.#model, entry.op);
    const failed = observed.state.search.failed ?? flush(observed.state).state.search.failed;
    return failed === undefined || failed.shownChanged === true;
  }

  /** Ends the sequence because one answer alone is wrong (a broken stream, a body that is not a result). */
  fail(problem: Violation | undefined): void {
    if (problem !== undefined && this.failure === undefined) {
      this.failure = problem;
      this.#model = failedBy(this.#model, problem);
    }
  }

  /** Whether judged operation #a took effect before #b, once the model knows; undefined while either may have. */
  tookEffectFirst(a: number, b: number): boolean | undefined {
    return tookEffectFirst(this.#model, a, b);
  }

  /** Why the model stopped judging this sequence (too many possibilities), if it did. */
  get undecided(): string | undefined {
    return this.#model.search.undecided;
  }

  /** SHOULD-level findings, the first of each requirement. */
  #warn(violations: readonly Violation[], failed: Violation | undefined): void {
    for (const v of violations) {
      if (v !== failed && !this.warnings.some((w) => w.requirement === v.requirement)) this.warnings.push(v);
    }
  }
}
