/**
 * What the list and delete routes share before they touch the store: the agent, faults, their own
 * checks, an injected status and delay, then the conversation in the caller's scope (404
 * otherwise).
 */
import type { ServerResponse } from "node:http";
import { Uuid } from "../../schemas/index.ts";
import type { AppContext, FakeRequest } from "../context.ts";
import type { StoredConversation } from "../conversations/store.ts";
import { pauseBeforeAnswer } from "../pause/pause.ts";
import { injectedStatusError, NO_FAULTS } from "../faults/fault-plan.ts";
import { headerFaults, ruleFaults } from "../faults/request-faults.ts";
import { conversationCaller, conversationNotFound, findInScope, type Caller } from "../access/scope.ts";

/**
 * The steps list and delete share: the agent, X-Fake-Fault, the request's own checks
 * (`validate`), an injected status, the injected delay, and then the conversation,
 * which exists only for its own (agent, channel). An id that is not a UUID cannot exist.
 * The pacing of creates (llm-pacing) does not slow them.
 */
export async function conversationRequest<T>(
  ctx: AppContext,
  req: FakeRequest,
  res: ServerResponse,
  operation: "list" | "delete",
  validate: () => T,
): Promise<{ caller: Caller; conversation: StoredConversation; checked: T }> {
  const caller = conversationCaller(req);
  const faults =
    headerFaults(ctx, req, NO_FAULTS) ??
    ruleFaults(ctx, req, { agent: caller.agentId, operation, message: undefined }, NO_FAULTS);
  const checked = validate();
  const injected = injectedStatusError(faults);
  if (injected) throw injected;
  const pausing = pauseBeforeAnswer(ctx, faults.firstEventDelayMs, res);
  if (pausing) await pausing;
  const id = req.params["conversation_id"] ?? "";
  const conversation = Uuid.safeParse(id).success
    ? (findInScope(ctx, id, caller, operation) ??
      (operation === "list" ? ctx.conversations.lingeringListing(id, caller.agentId, caller.grant.channel) : undefined))
    : undefined;
  if (!conversation) throw conversationNotFound(id);
  return { caller, conversation, checked };
}
