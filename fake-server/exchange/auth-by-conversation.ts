/**
 * A stream endpoint that authenticates a request without a valid key by the conversation its
 * body names (a shortcut meant for browsers reconnecting to a conversation they hold): the
 * request is served as a key of that conversation's channel that grants its agent. Mutant only
 * (behavior.broken.streamAuthByConversation); without a reachable conversation the key check's
 * 401 stands.
 */
import type { AppContext, FakeRequest } from "../context.ts";
import { readExchangeBody } from "./prepare.ts";

/**
 * For a request the key check let on to its body (`req.refusedKey`): the body, read once, with
 * `req.grant` set to the conversation's key; the key check's refusal is thrown otherwise.
 * Undefined for a request that showed a valid key.
 */
export async function authenticatedByBody(
  ctx: AppContext,
  req: FakeRequest,
): Promise<{ readonly body: unknown } | undefined> {
  if (req.refusedKey === undefined) return undefined;
  const refusal = req.refusedKey;
  let body: unknown;
  try {
    body = await readExchangeBody(ctx, req);
  } catch {
    throw refusal;
  }
  const named =
    typeof body === "object" && body !== null && !Array.isArray(body)
      ? (body as Record<string, unknown>)["conversation_id"]
      : undefined;
  const owner = typeof named === "string" ? ctx.conversations.ownerOf(named) : undefined;
  const grant =
    owner && [...ctx.options.keys.values()].find((g) => g.channel === owner.channel && g.agents.has(owner.agentId));
  if (grant === undefined) throw refusal;
  req.grant = grant;
  return { body };
}
