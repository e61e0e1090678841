/**
 * Listing messages (LIST-1 … LIST-10).
 * Create cost: 11 at most — LIST-1: 1, LIST-2: 1, bounds property: 1, LIST-10: 1, partition: 2,
 * (the >100-message conversation is in listing-large.check.ts),
 * LIST-6: 1, LIST-7: 2, LIST-8: 2, LIST-9: 0.
 * Nothing assumes how many messages an exchange adds: sizes are read from `total`.
 */
import { randomUUID } from "node:crypto";
import fc from "fast-check";
import { z } from "zod";
import { CONVERSATION_NOT_FOUND, SpecMessageItem, SpecMessagePage } from "../../schemas/index.ts";
import { asValidInteger, pageParam, pageSizeParam, type QueryValue } from "../harness/arbitraries.ts";
import { check } from "../harness/check.ts";
import {
  expect2xx,
  expect4xx,
  expectErrorCode,
  expectJson,
  expectSame,
  expectShape,
  expectStatus,
  expectThat,
  expectValidationRefusal,
  is2xx,
} from "../harness/expect.ts";
import {
  continueConversation,
  listPage,
  sameId,
  startConversation,
  totalOf,
} from "./support/conversations.ts";
import { MAX_PAGE_SIZE, conversationWith, expectConsistentPage, referenceListing } from "./support/listing.ts";

const DEFAULT_PAGE_SIZE = 50;

check(
  ["LIST-1"],
  "a listing is 2xx JSON with conversation, items, page, page_size, total and has_more for the requested id",
  { creates: 1 },
  async (target) => {
    const { conversationId } = await startConversation(target, "list-1");
    const res = await target.client.list(conversationId);
    expect2xx(res, "listing");
    const page = expectJson(SpecMessagePage, res, "listing");
    expectThat(sameId(page.conversation.id, conversationId), `the listing of ${conversationId} names conversation ${page.conversation.id}`, res);
  },
);

check(
  ["LIST-2"],
  "without parameters the listing is page 1 with page_size 50",
  { creates: 1 },
  async (target) => {
    const { conversationId } = await startConversation(target, "list-2");
    const byDefault = await listPage(target, conversationId);
    expectSame(byDefault.page.page, 1, "the echoed page without parameters", byDefault.http);
    expectSame(byDefault.page.page_size, DEFAULT_PAGE_SIZE, "the echoed page_size without parameters", byDefault.http);
    const explicit = await listPage(target, conversationId, { page: 1, page_size: DEFAULT_PAGE_SIZE });
    expectSame(byDefault.page.items, explicit.page.items, "the items without parameters, compared with page=1&page_size=50", byDefault.http, explicit.http);
  },
);

check(
  ["LIST-3", "LIST-4", "LIST-5"],
  "any page/page_size, valid or not, is refused with a 4xx or served consistently within the bounds",
  { creates: 1 },
  async (target) => {
    const { conversationId, items: reference, total } = await conversationWith(target, "list-bounds", 1);
    const lastPage = (size: number) => Math.max(1, Math.ceil(total / size));
    const examples: [QueryValue, QueryValue][] = [
      [0, 10], [-1, 10], ["1.5", 10], ["abc", 10], [1, 0], [1, -1], [1, "1.5"], [1, "abc"],
      [1, 1], [2, 1], [1, 50], [1, 100], [1, 101], [1, 1000], [1000, 10], [undefined, undefined],
    ];
    await fc.assert(
      fc.asyncProperty(pageParam(), pageSizeParam(), async (page, size) => {
        const query: Record<string, string | number> = {};
        if (page !== undefined) query["page"] = page;
        if (size !== undefined) query["page_size"] = size;
        const context = `listing with ${JSON.stringify(query)}`;
        const validPage = page === undefined ? 1 : asValidInteger(page, 1, Number.MAX_SAFE_INTEGER);
        const validSize = size === undefined ? DEFAULT_PAGE_SIZE : asValidInteger(size, 1, MAX_PAGE_SIZE);
        // A page past the end may be refused (serving it is LIST-6, a SHOULD).
        const mustServe = validPage !== undefined && validSize !== undefined && validPage <= lastPage(validSize);

        const res = await target.client.list(conversationId, { query });
        if (!is2xx(res.status)) {
          expectThat(!mustServe, `${context}: a valid request was refused with ${res.status}`, res);
          expect4xx(res, context);
          return;
        }
        const served = expectJson(SpecMessagePage, res, context);
        expectThat(served.page >= 1, `${context}: served as page ${served.page}`, res);
        expectThat(served.page_size >= 1, `${context}: served with page_size ${served.page_size}`, res);
        expectThat(served.page_size <= MAX_PAGE_SIZE, `${context}: served with page_size ${served.page_size} (maximum 100)`, res);
        expectThat(served.items.length <= MAX_PAGE_SIZE, `${context}: ${served.items.length} items in one page (maximum 100)`, res);
        if (page !== undefined && validPage !== undefined) expectSame(served.page, validPage, `${context}: echoed page`, res);
        if (size !== undefined && validSize !== undefined) expectSame(served.page_size, validSize, `${context}: echoed page_size`, res);
        expectConsistentPage(served, res, reference, context);
      }),
      // Read-only: shrinking costs list requests only, so it stays on to show the smallest case.
      { ...target.fc(30), examples },
    );
  },
);

check(
  ["LIST-10"],
  "page or page_size below 1 or not an integer is refused with 400 or 422",
  { creates: 1 },
  async (target) => {
    const { conversationId } = await startConversation(target, "list-10");
    const invalid: (string | number)[] = [0, -1, "1.5", "abc"];
    const queries = [...invalid.map((page) => ({ page })), ...invalid.map((page_size) => ({ page_size }))];
    for (const query of queries) {
      const res = await target.client.list(conversationId, { query });
      expectValidationRefusal(res, `listing with ${JSON.stringify(query)}`);
    }
  },
);

/** Reading one page size costs ceil(total / size) requests; sizes costing more are left out. */
const MAX_PAGES_PER_SIZE = 60;

/** Page sizes that matter for a conversation of `total` messages: small ones, every divisor, and total ± 1. */
function pageSizesFor(total: number): number[] {
  const sizes = new Set<number>();
  for (let s = 1; s <= Math.min(total + 1, 8); s++) sizes.add(s);
  for (let s = 1; s <= total; s++) if (total % s === 0) sizes.add(s);
  for (const s of [total - 1, total, total + 1]) sizes.add(s);
  return [...sizes]
    .filter((s) => s >= 1 && s <= MAX_PAGE_SIZE && Math.ceil(total / s) <= MAX_PAGES_PER_SIZE)
    .sort((a, b) => a - b);
}

check(
  ["LIST-5"],
  "for every page size, pages 1..n hold every message exactly once in a stable order, with exact has_more",
  { creates: 2 },
  async (target) => {
    // Two exchanges give at least 2 messages; every size from 1 to total + 1 is tried, so
    // totals that are exact multiples of the page size (where has_more goes wrong) are among them.
    const { conversationId, items: reference, total } = await conversationWith(target, "list-partition", 2);
    expectThat(total >= 2, `a conversation of 2 exchanges lists only ${total} messages`);
    for (const size of pageSizesFor(total)) {
      const pages = Math.ceil(total / size);
      const seen: unknown[] = [];
      for (let page = 1; page <= pages; page++) {
        const listed = await listPage(target, conversationId, { page, page_size: size });
        const context = `page ${page} of size ${size}`;
        expectSame(listed.page.page, page, `${context}: echoed page`, listed.http);
        expectSame(listed.page.page_size, size, `${context}: echoed page_size`, listed.http);
        expectConsistentPage(listed.page, listed.http, reference, context);
        seen.push(...listed.page.items);
      }
      expectSame(seen, reference, `the messages of pages 1..${pages} of size ${size}, compared with the full listing`);
    }
  },
);

check(
  ["LIST-6"],
  "a page past the last is 2xx with no items and has_more false",
  { creates: 1 },
  async (target) => {
    const { conversationId } = await startConversation(target, "list-6");
    const total = await totalOf(target, conversationId);
    const pastTheEnd: Record<string, number>[] = [{ page: total + 1, page_size: 1 }, { page: 1000 }];
    for (const query of pastTheEnd) {
      const res = await target.client.list(conversationId, { query });
      const context = `listing ${JSON.stringify(query)} of a conversation of ${total} messages`;
      expect2xx(res, context);
      const page = expectJson(SpecMessagePage, res, context);
      expectSame(page.items, [], `${context}: items`, res);
      expectSame(page.has_more, false, `${context}: has_more`, res);
    }
  },
);

check(
  ["LIST-7"],
  "total counts the listed conversation's messages only",
  { creates: 2 },
  async (target) => {
    const a = await startConversation(target, "list-7-a");
    const before = await listPage(target, a.conversationId);
    const b = await startConversation(target, "list-7-b");
    const listedB = await referenceListing(target, b.conversationId);
    const after = await referenceListing(target, a.conversationId);
    // referenceListing already holds total to the number of messages actually listed.
    expectSame(after.total, before.page.total, "conversation A's total after conversation B got an exchange", before.http);
    expectThat(!JSON.stringify(listedB.items).includes(a.message), "conversation B's listing holds conversation A's message");
    expectThat(!JSON.stringify(after.items).includes(b.message), "conversation A's listing holds conversation B's message");
  },
);

/** RFC 3339 date-time (any precision, Z or an offset). */
const Rfc3339 = z.iso.datetime({ offset: true });

check(
  ["LIST-8"],
  "items are objects, citations are arrays, timestamps are RFC 3339, and updated_at advances with an exchange",
  { creates: 2 },
  async (target) => {
    const { conversationId } = await startConversation(target, "list-8");
    const first = await listPage(target, conversationId);
    first.page.items.forEach((item, i) => {
      expectThat(typeof item === "object" && item !== null && !Array.isArray(item), `item #${i + 1} is not an object`, first.http);
      expectShape(SpecMessageItem, item, `item #${i + 1}`, first.http);
    });
    const { created_at: createdAt, updated_at: updatedAt } = first.page.conversation;
    const created = Date.parse(expectShape(Rfc3339, createdAt, "conversation.created_at", first.http));
    const updated = Date.parse(expectShape(Rfc3339, updatedAt, "conversation.updated_at", first.http));
    expectThat(created <= updated, `created_at ${createdAt} is after updated_at ${updatedAt}`, first.http);

    await continueConversation(target, conversationId, "list-8-next");
    const second = await listPage(target, conversationId);
    const next = Date.parse(expectShape(Rfc3339, second.page.conversation.updated_at, "conversation.updated_at", second.http));
    expectSame(second.page.conversation.created_at, createdAt, "created_at after a new exchange", second.http);
    // "Advances" at the target's own resolution: whole-second timestamps may repeat within a second.
    const subSecond = [updatedAt, second.page.conversation.updated_at].every((t) => /\.\d+/.test(String(t)));
    expectThat(
      subSecond ? next > updated : next >= updated,
      `updated_at did not advance with a new exchange (${updatedAt} → ${second.page.conversation.updated_at})`,
      first.http,
      second.http,
    );
  },
);

check(
  ["LIST-9"],
  "listing an unknown conversation is 404 conversation_not_found",
  { creates: 0 },
  async (target) => {
    const res = await target.client.list(randomUUID());
    expectStatus(res, 404, "listing an unknown conversation");
    expectErrorCode(res, CONVERSATION_NOT_FOUND, "listing an unknown conversation");
  },
);
