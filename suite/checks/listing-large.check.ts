/**
 * LIST-3 and LIST-5 on a conversation of more than 100 messages.
 * Create cost: 51 at most. Kept in a file of its own, which the runner orders last, so that a
 * small --max-creates skips this one costly check rather than the cheap ones after it.
 */
import { SpecMessagePage } from "../../schemas/index.ts";
import { check } from "../harness/check.ts";
import { expect4xx, expectJson, expectSame, expectThat, is2xx } from "../harness/expect.ts";
import { continueConversation, listPage, startConversation, totalOf } from "./support/conversations.ts";
import { MAX_PAGE_SIZE, expectConsistentPage, referenceListing } from "./support/listing.ts";
import { skipCheck } from "./support/skip.ts";

const LARGE_CONVERSATION_CREATES = 51;

check(
  ["LIST-3", "LIST-5"],
  "a conversation of more than 100 messages is never served more than 100 per page, and its pages partition it",
  { creates: LARGE_CONVERSATION_CREATES },
  async (target) => {
    const { conversationId } = await startConversation(target, "list-large-0");
    // Grow until total exceeds 100 or the declared creates run out; an exchange adds at least one message.
    let total = await totalOf(target, conversationId);
    for (let i = 1; i < LARGE_CONVERSATION_CREATES && total <= MAX_PAGE_SIZE; i++) {
      await continueConversation(target, conversationId, `list-large-${i}`);
      total = await totalOf(target, conversationId);
    }
    const { items: reference } = await referenceListing(target, conversationId);

    for (const size of [MAX_PAGE_SIZE + 1, 1000]) {
      const res = await target.client.list(conversationId, { query: { page: 1, page_size: size } });
      const context = `listing with page_size ${size}`;
      if (!is2xx(res.status)) {
        expect4xx(res, context);
        continue;
      }
      const served = expectJson(SpecMessagePage, res, context);
      expectThat(served.items.length <= MAX_PAGE_SIZE, `${context}: ${served.items.length} items in one page`, res);
      expectThat(served.page_size <= MAX_PAGE_SIZE, `${context}: echoed page_size ${served.page_size}`, res);
      expectConsistentPage(served, res, reference, context);
    }

    const byDefault = await listPage(target, conversationId);
    expectConsistentPage(byDefault.page, byDefault.http, reference, "listing without parameters");

    const divisor = [MAX_PAGE_SIZE, 50, 34, 25, 20, 17].find((s) => reference.length % s === 0) ?? 7;
    for (const size of new Set([MAX_PAGE_SIZE, divisor])) {
      const seen: unknown[] = [];
      for (let page = 1; page <= Math.ceil(reference.length / size); page++) {
        const listed = await listPage(target, conversationId, { page, page_size: size });
        expectConsistentPage(listed.page, listed.http, reference, `page ${page} of size ${size}`);
        seen.push(...listed.page.items);
      }
      expectSame(seen, reference, `the messages of every page of size ${size}, compared with the full listing`);
    }
    if (reference.length <= MAX_PAGE_SIZE) {
      skipCheck(`budget: ${LARGE_CONVERSATION_CREATES} creates built a conversation of only ${reference.length} messages; more than 100 are needed to judge the page cap`);
    }
  },
);
