/**
 * What a request could have changed in the fake, as one comparable value: the store
 * counts, and for every conversation the test knows of (seeded or created), whether it
 * still exists, how many messages it holds and its updatedAt.
 */

import type { FakeInternals } from "../app.ts";

export interface KnownConversation {
  id: string;
  agentId: string;
  channel: string;
}

export function storeSnapshot(internals: FakeInternals, known: readonly KnownConversation[]): string {
  const conversations = known.map(({ id, agentId, channel }) => {
    const stored = internals.conversations.find(id, agentId, channel);
    return stored ? [id, stored.messages.length, stored.updatedAt] : [id, "gone"];
  });
  return JSON.stringify({ counts: internals.snapshot(), conversations });
}
