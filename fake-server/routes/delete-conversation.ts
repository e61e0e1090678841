import type { ServerResponse } from "node:http";
import type { AppContext, FakeRequest } from "../context.ts";
import { sendEmpty, successStatus } from "../http/respond.ts";
import { conversationRequest } from "./conversation-request.ts";

/** DELETE /v1/agents/:agent_id/conversations/:conversation_id */
export async function deleteConversation(ctx: AppContext, req: FakeRequest, res: ServerResponse): Promise<void> {
  const { caller, conversation } = await conversationRequest(ctx, req, res, () => undefined);
  ctx.conversations.delete(conversation.id, caller.agentId, caller.grant.channel);
  sendEmpty(res, successStatus(ctx.behavior, "delete"));
}
