/**
 * Optimistic locking without a retry, as a service that stores an exchange with
 * "UPDATE … WHERE version = :read" and ignores a miss would do. Mutants only
 * (behavior.broken.droppedOnConflictOn): a continuation on that operation reads its
 * conversation's version when it starts and is not stored when another exchange was
 * stored meanwhile; its answer goes out as usual.
 */
import type { AppContext } from "../context.ts";
import type { FreshExchange } from "../exchange/prepare.ts";

/** The version a continuation read when it started. */
export interface VersionRead {
  readonly conversationId: string;
  readonly version: number;
}

/** Messages are only ever appended, so their number is the conversation's version; -1 once it is gone. */
function versionOf(ctx: AppContext, conversationId: string): number {
  return ctx.conversations.byId(conversationId)?.messages.length ?? -1;
}

/** What a continuation on `operation` reads at its start; undefined when it does not lock (the conforming fake). */
export function versionAtStart(
  ctx: AppContext,
  operation: "create" | "stream",
  exchange: FreshExchange,
): VersionRead | undefined {
  const { conversationId } = exchange;
  if (ctx.behavior.broken.droppedOnConflictOn !== operation || conversationId === undefined) return undefined;
  return { conversationId, version: versionOf(ctx, conversationId) };
}

/** Whether the exchange may be stored: no lock, or its conversation is at the version it read. */
export function stillCurrent(ctx: AppContext, read: VersionRead | undefined): boolean {
  return read === undefined || versionOf(ctx, read.conversationId) === read.version;
}
