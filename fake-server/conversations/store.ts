/**
 * A session's conversations and their messages, found only by their owner (agent and channel) and
 * bounded by `--max-conversations`; also what the listing-lag variant and the reviving mutants keep
 * aside.
 */
import type { Citation } from "../../schemas/index.ts";
import type { Clock } from "../runtime/clock.ts";

// Classes rather than object literals: a million messages share one compact hidden class,
// and no message holds a closure. Citations point at the corpus's frozen arrays.
export class StoredMessage {
  constructor(
    readonly id: string,
    readonly role: "user" | "tool" | "assistant",
    readonly content: string,
    readonly createdAt: number,
    readonly citations: readonly Citation[] | undefined,
  ) {}
}

export class StoredConversation {
  /**
   * Oldest first; only ever appended to, so a page is one slice. The first exchange
   * replaces the empty array with one of its exact size (an array grown by push from empty
   * reserves room for 19), which most conversations of a test run never outgrow.
   */
  messages: StoredMessage[] = [];
  updatedAt: number;

  constructor(
    readonly id: string,
    readonly agentId: string,
    readonly channel: string,
    readonly createdAt: number,
  ) {
    this.updatedAt = createdAt;
  }
}

export interface StoreStats {
  conversations: number;
  messages: number;
}

/**
 * Every conversation, owned by the (agent, channel) that created it. `find` is the only way
 * in for a request, and it answers only for the owner: everything else is "not found".
 */
export class ConversationStore {
  private readonly conversations = new Map<string, StoredConversation>();
  /** Deleted conversations kept for a mutant that revives them (`delete(…, keep)`); empty otherwise. */
  private readonly deleted = new Map<string, StoredConversation>();
  /**
   * The listing-lag variant: deleted conversations its listing still shows, until when. In
   * order of deletion, and every entry lives as long, so the expired ones are at the front.
   */
  private readonly lingering = new Map<string, { conversation: StoredConversation; until: number }>();
  private messageCount = 0;

  constructor(
    private readonly clock: Clock,
    /** Ids of conversations and messages alike. */
    readonly newId: () => string,
    /** Past it, the oldest conversation goes (`--max-conversations`), so a long-running fake stays bounded. */
    private readonly maxConversations = Number.POSITIVE_INFINITY,
  ) {}

  open(agentId: string, channel: string): StoredConversation {
    return this.admit(new StoredConversation(this.newId(), agentId, channel, this.clock.now()));
  }

  /** A conversation built outside (a fixture), stored as it is; its id must be free. */
  admit(conversation: StoredConversation): StoredConversation {
    this.conversations.set(conversation.id, conversation);
    this.messageCount += conversation.messages.length;
    // A Map iterates in insertion order: its first entry is the oldest conversation.
    while (this.conversations.size > this.maxConversations) {
      const oldest = this.conversations.values().next().value;
      if (oldest === undefined) break;
      this.conversations.delete(oldest.id);
      this.messageCount -= oldest.messages.length;
    }
    return conversation;
  }

  /** Whether any conversation, of any scope, has this id. */
  has(id: string): boolean {
    return this.conversations.has(id);
  }

  /** Every conversation, oldest first (for the state file). */
  all(): IterableIterator<StoredConversation> {
    return this.conversations.values();
  }

  find(id: string, agentId: string, channel: string): StoredConversation | undefined {
    const conversation = this.conversations.get(id);
    return conversation && conversation.agentId === agentId && conversation.channel === channel
      ? conversation
      : undefined;
  }

  /** A conversation by id alone, whatever its scope: for the fake's own export (`/__fake/conversations/ID`). */
  byId(id: string): StoredConversation | undefined {
    return this.conversations.get(id);
  }

  /** Whose a conversation is, whatever the scope asking: only for the scope rule in access/scope.ts. */
  ownerOf(id: string): { readonly agentId: string; readonly channel: string } | undefined {
    const conversation = this.conversations.get(id);
    return conversation && { agentId: conversation.agentId, channel: conversation.channel };
  }

  /** Messages of every conversation of one agent and channel (a mutant's wrong `total`). */
  messagesInScope(agentId: string, channel: string): number {
    let count = 0;
    for (const conversation of this.conversations.values()) {
      if (conversation.agentId === agentId && conversation.channel === channel) count += conversation.messages.length;
    }
    return count;
  }

  /**
   * Appends one exchange (user message, then assistant message) if the conversation still
   * exists; returns false when it was deleted meanwhile. Each exchange moves `updatedAt`
   * forward by at least 1 ms, so it advances even within one millisecond.
   */
  appendExchange(
    id: string,
    userText: string,
    answerText: string,
    citations: readonly Citation[],
    note?: string,
  ): boolean {
    const conversation = this.conversations.get(id);
    if (!conversation) return false;
    const stamp = this.nextStamp(conversation);
    const user = new StoredMessage(this.newId(), "user", userText, stamp, undefined);
    // A tool note between question and answer: the three-messages variant.
    const between = note === undefined ? undefined : new StoredMessage(this.newId(), "tool", note, stamp, undefined);
    const assistant = new StoredMessage(this.newId(), "assistant", answerText, stamp, citations);
    this.append(conversation, between === undefined ? [user, assistant] : [user, between, assistant], stamp);
    return true;
  }

  /** Mutant only (commit/answer-watch.ts): a user message without its answer, if the conversation still exists. */
  appendQuestion(id: string, userText: string): boolean {
    const conversation = this.conversations.get(id);
    if (!conversation) return false;
    const stamp = this.nextStamp(conversation);
    this.append(conversation, [new StoredMessage(this.newId(), "user", userText, stamp, undefined)], stamp);
    return true;
  }

  /** When the next messages of a conversation are stored: never before it began, and always after its latest. */
  private nextStamp(conversation: StoredConversation): number {
    const now = this.clock.now();
    return conversation.messages.length === 0
      ? Math.max(now, conversation.createdAt)
      : Math.max(now, conversation.updatedAt + 1);
  }

  private append(conversation: StoredConversation, added: StoredMessage[], stamp: number): void {
    if (conversation.messages.length === 0) conversation.messages = added;
    else conversation.messages.push(...added);
    conversation.updatedAt = stamp;
    this.messageCount += added.length;
  }

  /**
   * Deletes for good, or (`keep`, mutants only) keeps it aside for `revive`. `listedForMs`
   * (the listing-lag variant): the listing still shows it that long (`lingeringListing`).
   */
  delete(id: string, agentId: string, channel: string, keep = false, listedForMs = 0): boolean {
    const conversation = this.find(id, agentId, channel);
    if (!conversation) return false;
    this.conversations.delete(id);
    this.messageCount -= conversation.messages.length;
    if (keep) this.deleted.set(id, conversation);
    this.dropExpiredLingering();
    if (listedForMs > 0) this.lingering.set(id, { conversation, until: this.clock.now() + listedForMs });
    return true;
  }

  /** A deleted conversation the listing-lag variant's listing still shows its owner now. */
  lingeringListing(id: string, agentId: string, channel: string): StoredConversation | undefined {
    this.dropExpiredLingering();
    const conversation = this.lingering.get(id)?.conversation;
    return conversation?.agentId === agentId && conversation.channel === channel ? conversation : undefined;
  }

  private dropExpiredLingering(): void {
    const now = this.clock.now();
    for (const [id, { until }] of this.lingering) {
      if (until > now) break;
      this.lingering.delete(id);
    }
  }

  /**
   * Mutants only: a conversation deleted with `keep` comes back for its owner, with its
   * messages ("restore") or empty under the same id ("reuse").
   */
  revive(id: string, agentId: string, channel: string, how: "restore" | "reuse"): StoredConversation | undefined {
    const dead = this.deleted.get(id);
    if (!dead || dead.agentId !== agentId || dead.channel !== channel) return undefined;
    this.deleted.delete(id);
    const alive = how === "restore" ? dead : new StoredConversation(id, agentId, channel, this.clock.now());
    this.conversations.set(id, alive);
    this.messageCount += alive.messages.length;
    return alive;
  }

  clear(): void {
    this.conversations.clear();
    this.deleted.clear();
    this.lingering.clear();
    this.messageCount = 0;
  }

  stats(): StoreStats {
    return { conversations: this.conversations.size, messages: this.messageCount };
  }

  /**
   * Test and benchmark support: a conversation of `exchanges` exchanges built directly,
   * without going through HTTP.
   */
  seed(agentId: string, channel: string, exchanges: number, citations: readonly Citation[] = []): StoredConversation {
    const conversation = this.open(agentId, channel);
    for (let i = 0; i < exchanges; i++) {
      this.appendExchange(conversation.id, `seeded question ${i}`, `seeded answer ${i}`, citations);
    }
    return conversation;
  }
}
