/**
 * End-of-run cleanup: delete every conversation the run tracked, as its owner, and nothing
 * else. Failures here are recorded apart from the conformance verdicts.
 */

import type { JournalEntry, KeyRole } from "../harness/journal.ts";
import type { ConformanceReport } from "../harness/report-types.ts";
import type { Identity, ServiceClient } from "../harness/types.ts";

export interface TrackedConversation {
  conversationId: string;
  owner: { agentId: string; key: KeyRole };
}

export interface JournalTotals {
  creates: number;
  tracked: TrackedConversation[];
}

export function journalTotals(entries: readonly JournalEntry[]): JournalTotals {
  let creates = 0;
  const tracked = new Map<string, TrackedConversation>();
  for (const entry of entries) {
    if (entry.type === "create") creates++;
    else tracked.set(JSON.stringify([entry.conversationId, entry.owner.agentId, entry.owner.key]), { conversationId: entry.conversationId, owner: entry.owner });
  }
  return { creates, tracked: [...tracked.values()] };
}

export interface CleanupKeys {
  primary: string | null;
  other: string | undefined;
}

/** After this many "cannot reach" failures in a row, the rest is not attempted. */
const UNREACHABLE_LIMIT = 3;

export async function cleanupConversations(
  tracked: readonly TrackedConversation[],
  client: ServiceClient,
  keys: CleanupKeys,
  concurrency: number,
): Promise<ConformanceReport["cleanup"]> {
  const result: ConformanceReport["cleanup"] = { deleted: 0, failed: [] };
  let unreachableInARow = 0;
  let next = 0;

  const ownerOf = (t: TrackedConversation): Identity | string => {
    if (t.owner.key === "primary") return { apiKey: keys.primary, agentId: t.owner.agentId };
    if (t.owner.key === "other" && keys.other !== undefined) return { apiKey: keys.other, agentId: t.owner.agentId };
    return `its owner's key (${t.owner.key}) is not one of the configured keys`;
  };

  const deleteOne = async (t: TrackedConversation) => {
    const owner = ownerOf(t);
    if (typeof owner === "string") {
      result.failed.push({ conversationId: t.conversationId, reason: owner });
      return;
    }
    if (unreachableInARow >= UNREACHABLE_LIMIT) {
      result.failed.push({ conversationId: t.conversationId, reason: "not attempted: the target stopped answering" });
      return;
    }
    try {
      const response = await client.delete(t.conversationId, { as: owner });
      unreachableInARow = 0;
      // 404: a check already deleted it, which is what cleanup wanted.
      if ((response.status >= 200 && response.status < 300) || response.status === 404) result.deleted++;
      else result.failed.push({ conversationId: t.conversationId, reason: `DELETE answered ${response.status}` });
    } catch (error) {
      if (error instanceof Error && error.name === "HarnessError") unreachableInARow++;
      result.failed.push({ conversationId: t.conversationId, reason: error instanceof Error ? error.message : String(error) });
    }
  };

  const worker = async () => {
    while (next < tracked.length) {
      const item = tracked[next++];
      if (item !== undefined) await deleteOne(item);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(concurrency, tracked.length)) }, worker));
  return result;
}
