/**
 * End-of-run cleanup: delete every conversation the run tracked and no check deleted, as its
 * owner, and nothing else. Failures, and conversations not found at cleanup, are recorded apart
 * from the conformance verdicts.
 */

import type { JournalEntry, KeyRole } from "../checks/runtime/journal.ts";
import type { ConformanceReport } from "../report/report-types.ts";
import type { Identity, ServiceClient } from "../http/types.ts";

interface TrackedConversation {
  conversationId: string;
  owner: { agentId: string; key: KeyRole };
}

interface JournalTotals {
  creates: number;
  /** Conversations to delete at the end: tracked, and not already deleted by a check. */
  tracked: TrackedConversation[];
  /** Tracked conversations a check already deleted (2xx): gone, and not asked for again. */
  deletedByChecks: number;
}

export function journalTotals(entries: readonly JournalEntry[]): JournalTotals {
  let creates = 0;
  const tracked = new Map<string, TrackedConversation>();
  const deleted = new Set<string>();
  for (const entry of entries) {
    if (entry.type === "create") creates++;
    else if (entry.type === "deleted") deleted.add(entry.conversationId.toLowerCase());
    else
      tracked.set(JSON.stringify([entry.conversationId, entry.owner.agentId, entry.owner.key]), {
        conversationId: entry.conversationId,
        owner: entry.owner,
      });
  }
  const all = [...tracked.values()];
  const left = all.filter((t) => !deleted.has(t.conversationId.toLowerCase()));
  const gone = new Set(
    all.filter((t) => deleted.has(t.conversationId.toLowerCase())).map((t) => t.conversationId.toLowerCase()),
  );
  return { creates, tracked: left, deletedByChecks: gone.size };
}

interface CleanupKeys {
  primary: string | null;
  other: string | undefined;
}

/** What an interrupted run needs of its cleanup. */
export interface CleanupControl {
  /** Why no further delete may start (a second signal stopped the run at once); undefined while they may. */
  stopped?: () => string | undefined;
  /** Told of each conversation deleted, as it goes: a run stopped at once lists only what is left. */
  deleted?: (conversationId: string) => void;
  /**
   * Told of each DELETE as it is sent: a run stopped at once before its answer cannot say the
   * conversation is still there (a service finishes a request whose client left).
   */
  sending?: (conversationId: string) => void;
}

/** After this many "cannot reach" failures in a row, the rest is not attempted. */
const UNREACHABLE_LIMIT = 3;

export async function cleanupConversations(
  tracked: readonly TrackedConversation[],
  client: ServiceClient,
  keys: CleanupKeys,
  concurrency: number,
  control: CleanupControl = {},
): Promise<ConformanceReport["cleanup"]> {
  const stopped = control.stopped ?? (() => undefined);
  const result: ConformanceReport["cleanup"] = { deleted: 0, failed: [] };
  const notFound: string[] = [];
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
    const stop = stopped();
    if (stop !== undefined) {
      result.failed.push({ conversationId: t.conversationId, reason: `not deleted: ${stop}` });
      return;
    }
    if (unreachableInARow >= UNREACHABLE_LIMIT) {
      result.failed.push({ conversationId: t.conversationId, reason: "not attempted: the target stopped answering" });
      return;
    }
    try {
      control.sending?.(t.conversationId);
      const response = await client.delete(t.conversationId, { as: owner });
      unreachableInARow = 0;
      // 404 for a conversation this run created and no check deleted: gone for its owner, but
      // not deleted here either (often a sign of state not shared between replicas).
      if (response.status >= 200 && response.status < 300) {
        result.deleted++;
        control.deleted?.(t.conversationId);
      } else if (response.status === 404) notFound.push(t.conversationId);
      else result.failed.push({ conversationId: t.conversationId, reason: `DELETE answered ${response.status}` });
    } catch (error) {
      if (error instanceof Error && error.name === "HarnessError") unreachableInARow++;
      result.failed.push({
        conversationId: t.conversationId,
        reason: error instanceof Error ? error.message : String(error),
      });
    }
  };

  const worker = async () => {
    while (next < tracked.length) {
      const item = tracked[next++];
      if (item !== undefined) await deleteOne(item);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(concurrency, tracked.length)) }, worker));
  return notFound.length > 0 ? { ...result, notFound } : result;
}
