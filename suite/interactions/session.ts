/**
 * One sequence of the property as it runs: the conversations of its two slots, the keys it
 * used, the history of operations it observed and the model's judgement of them so far.
 */
import type { Identity, ServiceClient, Transcript } from "../http/types.ts";
import { flush, initialState, observe, type ModelState } from "../model/model.ts";
import type { Endpoint, Op, Who } from "../model/operation.ts";
import type { Violation } from "../model/violation.ts";
import type { Slot } from "./commands.ts";

/** What the property needs of a target: connections, identities, fresh names, the budget. */
export interface InteractionTarget {
  /** Clients with one connection each (at least two). */
  readonly lanes: readonly ServiceClient[];
  readonly identities: { readonly primary: Identity; readonly otherAgent?: Identity | undefined; readonly otherKey?: Identity | undefined };
  message(label: string): string;
  idempotencyKey(label: string): string;
  /** Registers a conversation for deletion at the end of the run. */
  track(conversationId: string, owner: Identity): void;
  /** Creates the budget still allows. */
  remainingCreates(): number;
  /** How long a listing may take to show what happened. */
  readonly settleMs: number;
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
}

export interface SlotState {
  readonly id: string;
  readonly owner: Who;
  deleted: boolean;
}

export interface KeyUse {
  readonly key: string;
  readonly message: string;
  readonly body: Record<string, unknown>;
  readonly who: Who;
  readonly endpoint: Endpoint;
  readonly lane: number;
  /** Whether its first request answered 2xx (then a replay costs nothing). */
  readonly ok: boolean;
  /** The conversation its exchange belongs to, once known. */
  readonly conversationId?: string | undefined;
}

export class Session {
  readonly entries: Entry[] = [];
  readonly slots: [SlotState | undefined, SlotState | undefined] = [undefined, undefined];
  readonly keys: KeyUse[] = [];
  /** Who started each conversation the sequence saw, by lower-cased id. */
  readonly owners = new Map<string, { readonly id: string; readonly who: Who }>();
  model: ModelState = initialState();
  /** Same-key races sent: groups whose requests shared one key. */
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
  ) {
    this.createsAllowed = Math.max(0, Math.min(share, target.remainingCreates()));
  }

  nextIndex(): number {
    return this.#next++;
  }

  identity(who: Who): Identity | undefined {
    return who === "primary" ? this.target.identities.primary : this.target.identities[who];
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

  slot(slot: Slot): SlotState | undefined {
    return this.slots[slot];
  }

  /** Feeds the entries of one command to the model, in the order they were sent. */
  judge(entries: readonly Entry[]): void {
    this.entries.push(...entries);
    if (this.failure !== undefined) return;
    let state = this.model;
    for (const entry of [...entries].sort((a, b) => a.op.start - b.op.start)) {
      const observed = observe(state, entry.op);
      state = observed.state;
      this.#warn(observed.violations, state.failed);
    }
    const flushed = flush(state);
    this.#warn(flushed.violations, flushed.state.failed);
    this.model = flushed.state;
    this.failure = this.model.failed;
  }

  /** Whether the model would accept `entry` now (for reading a listing until it settles). */
  accepts(entry: Entry): boolean {
    const observed = observe(this.model, entry.op);
    return observed.state.failed === undefined && flush(observed.state).state.failed === undefined;
  }

  /** SHOULD-level findings, the first of each requirement. */
  #warn(violations: readonly Violation[], failed: Violation | undefined): void {
    for (const v of violations) {
      if (v !== failed && !this.warnings.some((w) => w.requirement === v.requirement)) this.warnings.push(v);
    }
  }
}
