/**
 * `DELETE /v1/agents/:agent_id/conversations/:conversation_id`: the conversation removed in the
 * caller's scope (204, or the deleted conversation under a variant), and the delete mutants.
 */
import type { ServerResponse } from "node:http";
import { keepsDeleted } from "../access/scope.ts";
import type { AppContext, FakeRequest } from "../context.ts";
import { toConversation } from "../conversations/serialise.ts";
import { ApiError } from "../http/api-error.ts";
import { withExtraFields } from "../http/extra-fields.ts";
import { sendEmpty, sendJson, successStatus } from "../http/respond.ts";
import { conversationRequest } from "./conversation-request.ts";

/** The conversation to delete; a mutant answers its 404 with another code. */
async function conversationToDelete(ctx: AppContext, req: FakeRequest, res: ServerResponse) {
  try {
    return (await conversationRequest(ctx, req, res, "delete", () => undefined)).conversation;
  } catch (error) {
    const code = ctx.behavior.broken.deleteNotFoundCode;
    if (error instanceof ApiError && error.code === "conversation_not_found" && code !== error.code) {
      throw new ApiError(error.status, code, error.message, error.headers);
    }
    throw error;
  }
}

/** DELETE /v1/agents/:agent_id/conversations/:conversation_id */
export async function deleteConversation(ctx: AppContext, req: FakeRequest, res: ServerResponse): Promise<void> {
  const conversation = await conversationToDelete(ctx, req, res);
  // Deleted as its owner: a scope mutant may have reached another agent's conversation.
  if (ctx.behavior.broken.deleteRemoves) {
    // Under listing-lag the delete reaches the listing as late as an exchange does.
    ctx.conversations.delete(
      conversation.id,
      conversation.agentId,
      conversation.channel,
      keepsDeleted(ctx.behavior),
      ctx.behavior.listingLagMs,
    );
  }
  const status = successStatus(ctx.behavior, "delete");
  if (ctx.behavior.deleteBody === "conversation") {
    sendJson(res, status, withExtraFields(ctx.behavior, toConversation(conversation, ctx.behavior)));
  } else {
    sendEmpty(res, status);
  }
}
