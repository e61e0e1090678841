/**
 * Write-behind (the listing-lag variant): the listing shows an exchange only a while after it
 * was stored, and a deleted conversation for as long after its delete, as a service that
 * answers first and updates its read model later. The store holds every change at once, so
 * continuing, replaying and deleting see it at once; only the listing looks through this lag
 * (deleted conversations: ConversationStore.lingeringListing).
 */
import type { Behavior } from "../behavior/behavior.ts";
import type { StoredConversation } from "../conversations/store.ts";

/** How long after its create answered an exchange reaches the listing. */
export const LISTING_LAG_MS = 300;

/** `listedCount` of a conversation the listing does not know yet: 404, as an unknown one. */
export const NOT_LISTED = -1;

/**
 * How many of the conversation's messages (oldest first) the listing shows at `now`, or
 * NOT_LISTED for a conversation whose first exchange has not reached it. An exchange's
 * messages share one timestamp, the moment it was stored, so they appear together.
 */
export function listedCount(
  behavior: Pick<Behavior, "listingLagMs" | "broken">,
  conversation: StoredConversation,
  now: number,
): number {
  const lag = behavior.listingLagMs;
  const { messages } = conversation;
  if (lag === 0) return messages.length;
  let count = messages.length;
  while (count > 0 && (messages[count - 1]?.createdAt ?? 0) + lag > now) count--;
  // Mutant only: what came after the first exchange never arrives.
  if (behavior.broken.continuationsNeverListed && count > 0) {
    const first = messages[0]?.createdAt;
    let firstExchange = 1;
    while (firstExchange < count && messages[firstExchange]?.createdAt === first) firstExchange++;
    count = firstExchange;
  }
  return count === 0 ? NOT_LISTED : count;
}
