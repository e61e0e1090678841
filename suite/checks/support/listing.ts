/** Listing helpers shared by the listing checks: a reference listing and the LIST-5 page rules. */
import { SpecMessagePage } from "../../../schemas/index.ts";
import { expectSame } from "../../harness/expect.ts";
import type { HttpResult, Target } from "../../harness/types.ts";
import { continueConversation, readAllPages, startConversation } from "./conversations.ts";

export const MAX_PAGE_SIZE = 100;

/** A conversation of `exchanges` exchanges, with its full item list as read in pages of 100. */
export async function conversationWith(target: Target, label: string, exchanges: number) {
  const { conversationId } = await startConversation(target, `${label}-0`);
  for (let i = 1; i < exchanges; i++) await continueConversation(target, conversationId, `${label}-${i}`);
  return { conversationId, ...(await referenceListing(target, conversationId)) };
}

/** Every message, in the order pages of 100 give them; `total` must agree with what is there. */
export async function referenceListing(target: Target, conversationId: string) {
  const { items, pages } = await readAllPages(target, conversationId, MAX_PAGE_SIZE);
  const total = pages[0]?.page.total ?? 0;
  expectSame(items.length, total, "the number of messages read in pages of 100, compared with total", ...pages.map((p) => p.http));
  return { items, total };
}

/**
 * LIST-5 for one served page, judged by what the server echoed: the items are exactly that
 * slice of the reference listing, total is stable, and has_more is exact.
 */
export function expectConsistentPage(page: SpecMessagePage, http: HttpResult, reference: readonly unknown[], context: string): void {
  const total = reference.length;
  expectSame(page.total, total, `${context}: total`, http);
  const offset = (page.page - 1) * page.page_size;
  const expectedLength = Math.min(page.page_size, Math.max(0, total - offset));
  expectSame(page.items.length, expectedLength, `${context}: items.length for page ${page.page} of size ${page.page_size} with total ${total}`, http);
  expectSame(page.has_more, page.page * page.page_size < total, `${context}: has_more for page ${page.page} of size ${page.page_size} with total ${total}`, http);
  expectSame(page.items, reference.slice(offset, offset + page.page_size), `${context}: the items of page ${page.page} of size ${page.page_size}`, http);
}
