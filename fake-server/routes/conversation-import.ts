/**
 * `POST /__fake/conversations` and its GET: a whole conversation stored in the session as a test's
 * fixture, then served like any other, and read back in the same shape.
 */
import type { ServerResponse } from "node:http";
import type { AppContext, FakeRequest } from "../context.ts";
import { exportConversation, importConversation } from "../state/conversation-fixture.ts";
import { ApiError } from "../http/api-error.ts";
import { sendJson } from "../http/respond.ts";
import { controlBody } from "./control-body.ts";

/** POST /__fake/conversations: a whole conversation stored in the session, then served like any other. */
export async function importConversationRoute(ctx: AppContext, req: FakeRequest, res: ServerResponse): Promise<void> {
  const body = await controlBody(ctx, req);
  const conversation = importConversation(body, ctx.conversations, ctx.options.keys, ctx.clock);
  sendJson(res, 201, { conversation_id: conversation.id });
}

/** GET /__fake/conversations/:conversation_id: the conversation in the import shape. */
export function exportConversationRoute(ctx: AppContext, req: FakeRequest, res: ServerResponse): void {
  const id = (req.params["conversation_id"] ?? "").toLowerCase();
  const conversation = ctx.conversations.byId(id);
  if (conversation === undefined) {
    throw new ApiError(
      404,
      "conversation_not_found",
      `no conversation ${JSON.stringify(id.slice(0, 80))} in session ${JSON.stringify(ctx.session.name)}`,
    );
  }
  sendJson(res, 200, exportConversation(conversation));
}
