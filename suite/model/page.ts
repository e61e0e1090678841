/**
 * What one listing shows by itself, whatever the service's state: it names the conversation
 * asked for, echoes the parameters it used (the spec's defaults for those not sent), and its
 * items and has_more follow from page, page_size and total.
 */
import type { ListOp, ListingValue } from "./operation.ts";
import { sameConversation } from "./operation.ts";
import { violation, words, type Violation } from "./violation.ts";

export const DEFAULT_PAGE = 1;
export const DEFAULT_PAGE_SIZE = 50;
export const MAX_PAGE_SIZE = 100;

export function judgePage(op: ListOp, page: ListingValue): Violation | undefined {
  const at = words`#${op.index}`;
  if (!sameConversation(page.conversationId, op.conversationId)) {
    return violation(
      "LIST-1",
      words`${at} listed conversation ${op.conversationId} and was answered the listing of ${page.conversationId}`,
      [op.index],
      words`conversation.id ${op.conversationId}`,
    );
  }
  const sent = describeQuery(op.query);
  if (op.query.page === undefined && page.page !== DEFAULT_PAGE) {
    return violation(
      "LIST-2",
      words`${at} sent ${sent} (no page) and was served page ${page.page}`,
      [op.index],
      words`page ${DEFAULT_PAGE}, the default`,
    );
  }
  if (op.query.pageSize === undefined && page.pageSize !== DEFAULT_PAGE_SIZE) {
    return violation(
      "LIST-2",
      words`${at} sent ${sent} (no page_size) and was served page_size ${page.pageSize}`,
      [op.index],
      words`page_size ${DEFAULT_PAGE_SIZE}, the default`,
    );
  }
  if (op.query.page !== undefined && page.page !== op.query.page) {
    return violation(
      "LIST-5",
      words`${at} asked for page ${op.query.page} and the answer says page ${page.page}`,
      [op.index],
      words`page ${op.query.page}`,
    );
  }
  const size = op.query.pageSize;
  if (size !== undefined && page.pageSize !== size && !(size > MAX_PAGE_SIZE && page.pageSize <= MAX_PAGE_SIZE)) {
    return violation(
      "LIST-5",
      words`${at} asked for page_size ${size} and the answer says page_size ${page.pageSize}`,
      [op.index],
      words`page_size ${size}${size > MAX_PAGE_SIZE ? `, or one of at most ${MAX_PAGE_SIZE} if it clamps` : ""}`,
    );
  }
  const offset = (page.page - 1) * page.pageSize;
  const length = Math.min(page.pageSize, Math.max(0, page.total - offset));
  if (page.items.length !== length) {
    return violation(
      "LIST-5",
      words`${at} page ${page.page} of size ${page.pageSize} with total ${page.total} holds ${page.items.length} item(s)`,
      [op.index],
      words`${length} item(s): the page starts after item ${offset} of ${page.total}`,
    );
  }
  if (page.hasMore !== page.page * page.pageSize < page.total) {
    return violation(
      "LIST-5",
      words`${at} page ${page.page} of size ${page.pageSize} with total ${page.total} says has_more ${page.hasMore}`,
      [op.index],
      words`has_more ${!page.hasMore}: ${page.page * page.pageSize} item(s) up to this page, of ${page.total}`,
    );
  }
  return undefined;
}

export function describeQuery(query: ListOp["query"]): string {
  const parts = [
    query.page === undefined ? undefined : `page=${query.page}`,
    query.pageSize === undefined ? undefined : `page_size=${query.pageSize}`,
  ].filter((p) => p !== undefined);
  return parts.length === 0 ? "no parameters" : parts.join("&");
}
