/**
 * The few exchanges almost every check needs: start a conversation (tracked for cleanup) and
 * read a conversation's listing. Each one fails with the exchange attached when the target
 * does not do its part, so a check can rely on its result.
 */
import { SpecMessagePage, SpecResponseResult } from "../../../schemas/index.ts";
import { expect2xx, expectJson } from "../../judgements/expect.ts";
import type { HttpResult, Identity } from "../../http/types.ts";
import type { Target } from "../runtime/types.ts";

interface Accepted {
  conversationId: string;
  result: SpecResponseResult;
  http: HttpResult;
}

export interface Exchange extends Accepted {
  /** The user message that was sent. */
  message: string;
}

/** Creates a new conversation (one create) as `as` (default: primary) and tracks it. */
export async function startConversation(
  target: Target,
  label: string,
  as: Identity = target.primary,
): Promise<Exchange> {
  const message = target.message(label);
  const http = await target.client.create({ as, body: { message } });
  return { ...acceptExchange(target, http, `create starting a conversation (${label})`, as), message };
}

/** Validates a create answer and tracks its conversation (as `owner`). */
export function acceptExchange(
  target: Target,
  http: HttpResult,
  context: string,
  owner: Identity = target.primary,
): Accepted {
  expect2xx(http, context);
  const result = expectJson(SpecResponseResult, http, context);
  target.track(result.conversation_id, owner);
  return { conversationId: result.conversation_id, result, http };
}

/** If a create that should have been refused created something anyway, make sure cleanup removes it. */
export function trackIfCreated(target: Target, http: HttpResult, owner: Identity): void {
  const parsed = SpecResponseResult.safeParse(http.json);
  if (http.status >= 200 && http.status < 300 && parsed.success) target.track(parsed.data.conversation_id, owner);
}

/** One listing page (default: no query parameters), validated with the spec schema. */
export async function listPage(
  target: Target,
  conversationId: string,
  query: Record<string, string | number> = {},
  as: Identity = target.primary,
): Promise<{ page: SpecMessagePage; http: HttpResult }> {
  const http = await target.client.list(conversationId, { as, query });
  const context = `listing conversation ${conversationId} ${JSON.stringify(query)}`;
  expect2xx(http, context);
  return { page: expectJson(SpecMessagePage, http, context), http };
}

/** The conversation's `total` as its owner sees it. */
export async function totalOf(target: Target, conversationId: string, as: Identity = target.primary): Promise<number> {
  return (await listPage(target, conversationId, {}, as)).page.total;
}

/** Every message of a conversation, read with pages of `pageSize` (bounded by `maxPages`). */
export async function readAllPages(
  target: Target,
  conversationId: string,
  pageSize: number,
  maxPages = 200,
): Promise<{ items: unknown[]; pages: { page: SpecMessagePage; http: HttpResult }[] }> {
  const pages: { page: SpecMessagePage; http: HttpResult }[] = [];
  for (let page = 1; page <= maxPages; page++) {
    const listed = await listPage(target, conversationId, { page, page_size: pageSize });
    pages.push(listed);
    if (!listed.page.has_more) break;
  }
  return { items: pages.flatMap((p) => p.page.items), pages };
}
