/**
 * `GET /v1/agents/:agent_id/conversations/:conversation_id/messages`: one page of a conversation's
 * messages, oldest first, as far as the listing-lag variant lets it show them.
 */
import type { ServerResponse } from "node:http";
import { randomUUID } from "node:crypto";
import type { SpecMessagePage } from "../../schemas/index.ts";
import { conversationNotFound } from "../access/scope.ts";
import type { AppContext, FakeRequest } from "../context.ts";
import { parsePagination, slicePage } from "../conversations/pagination.ts";
import { toConversation, toMessageItem } from "../conversations/serialise.ts";
import { listedCount, NOT_LISTED } from "../deployment/listing-lag.ts";
import { withExtraFields } from "../http/extra-fields.ts";
import { sendJson, successStatus } from "../http/respond.ts";
import { conversationRequest } from "./conversation-request.ts";

/** GET /v1/agents/:agent_id/conversations/:conversation_id/messages */
export async function listMessages(ctx: AppContext, req: FakeRequest, res: ServerResponse): Promise<void> {
  const query: Readonly<Record<string, unknown>> = req.query;
  const { conversation, checked: pageRequest } = await conversationRequest(ctx, req, res, "list", () =>
    parsePagination(query, ctx.behavior),
  );
  // The listing-lag variant shows only the exchanges that reached its read model.
  const { messages } = conversation;
  const listed = listedCount(ctx.behavior, conversation, ctx.clock.now());
  if (listed === NOT_LISTED) throw conversationNotFound(conversation.id);
  const { broken } = ctx.behavior;
  const page = slicePage(messages, pageRequest, broken, listed);
  const summary = toConversation(
    conversation,
    ctx.behavior,
    listed === messages.length ? conversation.updatedAt : messages[listed - 1]?.createdAt,
  );
  const body: SpecMessagePage = {
    // Two mutants: one names another conversation, one counts the whole scope's messages.
    conversation: broken.listingOtherId ? { ...summary, id: randomUUID() } : summary,
    items: page.items.map((message) => toMessageItem(message, ctx.behavior)),
    page: pageRequest.page,
    page_size: pageRequest.pageSize,
    total: broken.totalCountsScope
      ? ctx.conversations.messagesInScope(conversation.agentId, conversation.channel)
      : page.total,
    has_more: page.hasMore,
  };
  sendJson(res, successStatus(ctx.behavior, "list"), withExtraFields(ctx.behavior, body));
}
