/**
 * What one plain answer must show, judged on the answer alone (active checks and the traffic
 * judge alike).
 */
import { SpecMessagePage, SpecResponseResult } from "../../schemas/index.ts";
import { expect2xx, expectJson, expectSame, expectThat } from "./expect.ts";
import type { HttpResult } from "../http/types.ts";
import { MAX_PAGE_SIZE } from "../model/page.ts";

/** UUIDs may come back in either case; compare them case-insensitively. */
export const sameId = (a: string, b: string) => a.toLowerCase() === b.toLowerCase();

/** RESP-1: a create answers 2xx JSON {conversation_id: UUID, response, citations}. */
export function judgeCreateAnswer(http: HttpResult, context: string): SpecResponseResult {
  expect2xx(http, context);
  return expectJson(SpecResponseResult, http, context);
}

/**
 * LIST-1: a listing is 2xx JSON of the page shape, naming the conversation asked for (when the
 * caller says which; without it, the shape alone).
 */
export function judgeListingAnswer(
  http: HttpResult,
  conversationId: string | undefined,
  context: string,
): SpecMessagePage {
  expect2xx(http, context);
  const page = expectJson(SpecMessagePage, http, context);
  if (conversationId !== undefined) {
    expectThat(
      sameId(page.conversation.id, conversationId),
      `the listing of ${conversationId} names conversation ${page.conversation.id}`,
      http,
    );
  }
  return page;
}

/**
 * LIST-5, what one page shows by itself: items.length and has_more follow from the echoed
 * page, page_size and total.
 */
export function judgePageArithmetic(page: SpecMessagePage, http: HttpResult, context: string): void {
  const offset = (page.page - 1) * page.page_size;
  const expectedLength = Math.min(page.page_size, Math.max(0, page.total - offset));
  expectSame(
    page.items.length,
    expectedLength,
    `${context}: items.length for page ${page.page} of size ${page.page_size} with total ${page.total}`,
    http,
  );
  expectSame(
    page.has_more,
    page.page * page.page_size < page.total,
    `${context}: has_more for page ${page.page} of size ${page.page_size} with total ${page.total}`,
    http,
  );
}

/** LIST-3, what one served page shows by itself: neither its page_size nor its items above the maximum. */
export function judgePageCap(page: SpecMessagePage, http: HttpResult, context: string): void {
  expectThat(
    page.page_size <= MAX_PAGE_SIZE,
    `${context}: served with page_size ${page.page_size} (maximum ${MAX_PAGE_SIZE})`,
    http,
  );
  expectThat(
    page.items.length <= MAX_PAGE_SIZE,
    `${context}: ${page.items.length} items in one page (maximum ${MAX_PAGE_SIZE})`,
    http,
  );
}
