/**
 * What the traffic judge remembers between exchanges: the conversations it saw made and
 * deleted, and the outcome of each Idempotency-Key it saw accepted. Bounded: past the caps the
 * oldest entries go (a judgement that needed them is then simply not made).
 */
import type { Operation } from "./classify.ts";

export interface KnownConversation {
  readonly agent: string;
  /** The key it was made with (its scope, as far as traffic shows). */
  readonly token: string | undefined;
  /** When a delete of it by its owner finished, epoch ms; undefined while it exists. */
  deletedAt: number | undefined;
}

export interface KeyOutcome {
  readonly operation: Extract<Operation, "create" | "stream">;
  /** Canonical JSON of the body, as the spec compares payloads. */
  readonly payload: string;
  /** The body as sent. */
  readonly raw: string | undefined;
  /** When the accepted request finished, epoch ms: only later requests are judged against it. */
  readonly finishedAt: number;
  /** What a replay must give again. */
  readonly result: { conversation_id: string; text: string; citations: unknown };
}

const MAX_ENTRIES = 100_000;

function bounded<K, V>(map: Map<K, V>, key: K, value: V): void {
  map.delete(key);
  map.set(key, value);
  if (map.size > MAX_ENTRIES) {
    const oldest = map.keys().next();
    if (!oldest.done) map.delete(oldest.value);
  }
}

export class TrafficState {
  private readonly conversations = new Map<string, KnownConversation>();
  private readonly keys = new Map<string, KeyOutcome>();
  /** Keys of creates refused for their body, and when the refusal finished. */
  private readonly refusals = new Map<string, number>();

  conversation(id: string | undefined): KnownConversation | undefined {
    return id === undefined ? undefined : this.conversations.get(id.toLowerCase());
  }

  rememberConversation(id: string, owner: Omit<KnownConversation, "deletedAt">): void {
    if (this.conversations.has(id.toLowerCase())) return;
    bounded(this.conversations, id.toLowerCase(), { ...owner, deletedAt: undefined });
  }

  keyOutcome(token: string, agent: string, key: string): KeyOutcome | undefined {
    return this.keys.get(`${token}\u0000${agent}\u0000${key}`);
  }

  refusal(token: string, agent: string, key: string): number | undefined {
    return this.refusals.get(`${token}\u0000${agent}\u0000${key}`);
  }

  rememberRefusal(token: string, agent: string, key: string, finishedAt: number): void {
    bounded(this.refusals, `${token}\u0000${agent}\u0000${key}`, finishedAt);
  }

  rememberKey(token: string, agent: string, key: string, outcome: KeyOutcome): void {
    bounded(this.keys, `${token}\u0000${agent}\u0000${key}`, outcome);
  }
}
