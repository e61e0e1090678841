import type { ServerResponse } from "node:http";
import type { MessagePage } from "../../schemas/index.ts";
import type { AppContext, FakeRequest } from "../context.ts";
import { parsePagination, slicePage } from "../conversations/pagination.ts";
import { toConversation, toMessageItem } from "../conversations/serialise.ts";
import { sendJson, successStatus } from "../http/respond.ts";
import { conversationRequest } from "./conversation-request.ts";

/** GET /v1/agents/:agent_id/conversations/:conversation_id/messages */
export async function listMessages(ctx: AppContext, req: FakeRequest, res: ServerResponse): Promise<void> {
  const query: Readonly<Record<string, unknown>> = req.query;
  const { conversation, checked: pageRequest } = await conversationRequest(ctx, req, res, () =>
    parsePagination(query, ctx.behavior),
  );
  const page = slicePage(conversation.messages, pageRequest);
  const body: MessagePage = {
    conversation: toConversation(conversation),
    items: page.items.map(toMessageItem),
    page: pageRequest.page,
    page_size: pageRequest.pageSize,
    total: page.total,
    has_more: page.hasMore,
  };
  sendJson(res, successStatus(ctx.behavior, "list"), body);
}
