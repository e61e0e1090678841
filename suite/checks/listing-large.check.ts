/**
 * Listing checks on the run's shared long conversation (more than 100 messages): LIST-3 and
 * LIST-5 (the page cap and the partition), LIST-7 (beside the small conversation) and LIST-11
 * (its exchanges were listed at once).
 * Create cost: none of their own. The long conversation is built by the first check that uses it
 * (51 creates at most, fewer once it holds more than 100 messages; shared with other families;
 * suite/checks/support/fixtures.ts); LIST-7 also reads the small conversation (3 creates, which
 * the full run builds anyway). Not in the smoke profile. Kept in a file of its own, which the
 * runner orders after the others (only the interaction property, which takes what is left, comes
 * later), so that a small --max-creates skips these rather than the cheap ones.
 */
import { SpecMessagePage } from "../../schemas/index.ts";
import { check } from "./runtime/check.ts";
import { expect4xx, expectJson, expectSame, is2xx } from "../judgements/expect.ts";
import { answerRule } from "../judgements/answer-rules.ts";
import { listPage } from "./support/conversations.ts";
import { longConversation, smallConversation } from "./support/fixtures.ts";
import { MAX_PAGE_SIZE, expectConsistentPage, expectListedAtOnce, expectOwnMessagesOnly } from "./support/listing.ts";
import { skipCheck } from "./support/skip.ts";

/** Skips when the long conversation never got past one page: the page cap cannot be judged on it. */
function needsMoreThanOnePage(exchanges: number, messages: number): void {
  if (messages <= MAX_PAGE_SIZE) {
    skipCheck(
      `the long conversation's ${exchanges} creates built only ${messages} messages; more than 100 are needed to judge the page cap`,
    );
  }
}

check(
  ["LIST-3"],
  "a conversation of more than 100 messages is never served more than 100 per page",
  { creates: 0, uses: [longConversation] },
  async (target) => {
    const {
      conversationId,
      exchanges,
      reference: { items: reference },
    } = await target.shared(longConversation);
    for (const size of [MAX_PAGE_SIZE + 1, 1000]) {
      const res = await target.client.list(conversationId, { query: { page: 1, page_size: size } });
      const context = `listing with page_size ${size}`;
      if (!is2xx(res.status)) {
        expect4xx(res, context);
        continue;
      }
      answerRule("LIST-3").judge({ to: "list", http: res }, context);
    }
    needsMoreThanOnePage(exchanges.length, reference.length);
  },
);

check(
  ["LIST-5"],
  "the pages of a conversation of more than 100 messages partition it, whatever page_size was asked",
  { creates: 0, uses: [longConversation] },
  async (target) => {
    const {
      conversationId,
      exchanges,
      reference: { items: reference },
    } = await target.shared(longConversation);
    // An oversized page_size, refused or clamped (LIST-3 judges which), still serves a consistent page.
    for (const size of [MAX_PAGE_SIZE + 1, 1000]) {
      const res = await target.client.list(conversationId, { query: { page: 1, page_size: size } });
      if (is2xx(res.status))
        expectConsistentPage(
          expectJson(SpecMessagePage, res, `listing with page_size ${size}`),
          res,
          reference,
          `listing with page_size ${size}`,
        );
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
    needsMoreThanOnePage(exchanges.length, reference.length);
  },
);

check(
  ["LIST-7"],
  "total counts the listed conversation's messages only (the long and the small conversation side by side)",
  { creates: 0, uses: [longConversation, smallConversation] },
  async (target) => {
    const long = { label: "the long conversation", recorded: await target.shared(longConversation) };
    const small = { label: "the small conversation", recorded: await target.shared(smallConversation) };
    await expectOwnMessagesOnly(target, long, [small]);
    await expectOwnMessagesOnly(target, small, [long]);
  },
);

check(
  ["LIST-11"],
  "every exchange of the long conversation was listed by the first read after it",
  { creates: 0, uses: [longConversation] },
  async (target) => {
    const { exchanges } = await target.shared(longConversation);
    expectListedAtOnce(target, "the long conversation", exchanges);
  },
);
