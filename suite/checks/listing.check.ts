/**
 * Listing messages (LIST-1 … LIST-11).
 * Create cost: none of its own. Every check but LIST-9 (which lists an unknown id) reads the
 * run's shared small conversation (3 creates, built by the first check that uses it and shared
 * with the plain-create and stream checks; suite/checks/support/fixtures.ts); LIST-7 also
 * compares it with the shared conversation for refused changes (1 create, shared with the auth
 * and scope checks). The >100-message checks are in listing-large.check.ts.
 * Smoke profile: every check here, at no cost beyond those two shared conversations.
 * The small conversation is finished before any check reads it (its build waited, up to
 * --settle-ms, for each exchange to show), so its listings are read without settling.
 * Nothing assumes how many messages an exchange adds: sizes are read from `total`.
 */
import { randomUUID } from "node:crypto";
import fc from "fast-check";
import { CONVERSATION_NOT_FOUND, SpecMessageItem, SpecMessagePage } from "../../schemas/index.ts";
import { asValidInteger, pageParam, pageSizeParam, type QueryValue } from "./support/arbitraries.ts";
import { check } from "./runtime/check.ts";
import { answerRule } from "../judgements/answer-rules.ts";
import { HarnessError } from "../http/errors.ts";
import type { HttpResult } from "../http/types.ts";
import type { Target } from "./runtime/types.ts";
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
} from "../judgements/expect.ts";
import { listPage } from "./support/conversations.ts";
import { refusalTarget, smallConversation } from "./support/fixtures.ts";
import { MAX_PAGE_SIZE, expectConsistentPage, expectListedAtOnce, expectOwnMessagesOnly } from "./support/listing.ts";
import { checkProperty } from "./support/property.ts";
import { skipCheck } from "./support/skip.ts";
import { Rfc3339 } from "./support/timestamps.ts";

const DEFAULT_PAGE_SIZE = 50;

const readsSmall = { creates: 0, uses: [smallConversation], smoke: true } as const;

check(
  ["LIST-1"],
  "a listing is 2xx JSON with conversation, items, page, page_size, total and has_more for the requested id",
  readsSmall,
  async (target) => {
    const { conversationId, exchanges } = await target.shared(smallConversation);
    const rule = answerRule("LIST-1");
    const res = await target.client.list(conversationId);
    rule.judge({ to: "list", http: res, conversationId }, "listing the small conversation");
    // The listings read after each of its exchanges must name it too.
    for (const listed of exchanges.map((e) => e.listingAfter))
      rule.judge({ to: "list", http: listed.http, conversationId }, "a listing read after an exchange");
  },
);

check(["LIST-2"], "without parameters the listing is page 1 with page_size 50", readsSmall, async (target) => {
  const { conversationId } = await target.shared(smallConversation);
  const byDefault = await listPage(target, conversationId);
  expectSame(byDefault.page.page, 1, "the echoed page without parameters", byDefault.http);
  expectSame(byDefault.page.page_size, DEFAULT_PAGE_SIZE, "the echoed page_size without parameters", byDefault.http);
  const explicit = await listPage(target, conversationId, { page: 1, page_size: DEFAULT_PAGE_SIZE });
  expectSame(
    byDefault.page.items,
    explicit.page.items,
    "the items without parameters, compared with page=1&page_size=50",
    byDefault.http,
    explicit.http,
  );
});

/** What one requirement holds of a page asked for with `page` and `size` (each maybe invalid or absent). */
interface PageCase {
  readonly query: Record<string, string | number>;
  readonly context: string;
  readonly page: QueryValue;
  readonly size: QueryValue;
  readonly validPage: number | undefined;
  readonly validSize: number | undefined;
  /** A valid request for a page that exists: it must be served. */
  readonly mustServe: boolean;
}

type PageJudgement = (
  c: PageCase,
  res: HttpResult,
  served: SpecMessagePage | undefined,
  reference: readonly unknown[],
) => void;

const PAGE_EXAMPLES: [QueryValue, QueryValue][] = [
  [0, 10],
  [-1, 10],
  ["1.5", 10],
  ["abc", 10],
  [1, 0],
  [1, -1],
  [1, "1.5"],
  [1, "abc"],
  [1, 1],
  [2, 1],
  [1, 50],
  [1, 100],
  [1, 101],
  [1, 1000],
  [1000, 10],
  [undefined, undefined],
];

/**
 * Random page/page_size (valid or not) against the small conversation, each answer held to one
 * requirement's part of the rules, so one bug fails its own requirement and not its neighbours.
 */
async function pageProperty(target: Target, judge: PageJudgement): Promise<void> {
  const {
    conversationId,
    reference: { items: reference, total },
  } = await target.shared(smallConversation);
  const lastPage = (size: number) => Math.max(1, Math.ceil(total / size));
  await checkProperty(
    fc.asyncProperty(pageParam(), pageSizeParam(), async (page, size) => {
      const query: Record<string, string | number> = {};
      if (page !== undefined) query["page"] = page;
      if (size !== undefined) query["page_size"] = size;
      const validPage = page === undefined ? 1 : asValidInteger(page, 1, Number.MAX_SAFE_INTEGER);
      const validSize = size === undefined ? DEFAULT_PAGE_SIZE : asValidInteger(size, 1, MAX_PAGE_SIZE);
      // A page past the end may be refused (serving it is LIST-6, a SHOULD).
      const mustServe = validPage !== undefined && validSize !== undefined && validPage <= lastPage(validSize);
      const res = await target.client.list(conversationId, { query });
      const context = `listing with ${JSON.stringify(query)}`;
      const served = is2xx(res.status) ? expectJson(SpecMessagePage, res, context) : undefined;
      judge({ query, context, page, size, validPage, validSize, mustServe }, res, served, reference);
    }),
    // Read-only: shrinking costs list requests only, so it stays on to show the smallest case.
    { ...target.fc(30), examples: PAGE_EXAMPLES },
  );
}

const numeric = (value: QueryValue) => (typeof value === "number" ? value : undefined);

check(
  ["LIST-3"],
  "a page_size above 100 is refused with a 4xx or clamped, and no page holds more than 100 items",
  readsSmall,
  (target) =>
    pageProperty(target, (c, res, served) => {
      const above = (numeric(c.size) ?? 0) > MAX_PAGE_SIZE;
      if (served === undefined) {
        if (above) expect4xx(res, c.context);
        return;
      }
      answerRule("LIST-3").judge({ to: "list", http: res }, c.context);
    }),
);

check(
  ["LIST-4"],
  "a page or page_size below 1 (or not an integer) is refused with a 4xx or served as a valid page, never as itself",
  readsSmall,
  (target) =>
    pageProperty(target, (c, res, served) => {
      const invalid =
        (c.page !== undefined && c.validPage === undefined) ||
        (c.size !== undefined && c.validSize === undefined && (numeric(c.size) ?? 0) <= MAX_PAGE_SIZE);
      if (served === undefined) {
        if (invalid) expect4xx(res, c.context);
        return;
      }
      expectThat(served.page >= 1, `${c.context}: served as page ${served.page}`, res);
      expectThat(served.page_size >= 1, `${c.context}: served with page_size ${served.page_size}`, res);
    }),
);

check(
  ["LIST-5"],
  "a valid page is served with the page and page_size asked for, its items and has_more consistent with total",
  readsSmall,
  (target) =>
    pageProperty(target, (c, res, served, reference) => {
      if (served === undefined) {
        expectThat(!c.mustServe, `${c.context}: a valid request was refused with ${res.status}`, res);
        return;
      }
      if (c.page !== undefined && c.validPage !== undefined)
        expectSame(served.page, c.validPage, `${c.context}: echoed page`, res);
      if (c.size !== undefined && c.validSize !== undefined)
        expectSame(served.page_size, c.validSize, `${c.context}: echoed page_size`, res);
      // What a served page shows must add up, whatever was asked (LIST-3 and LIST-4 judge the bounds).
      if (served.page >= 1 && served.page_size >= 1) expectConsistentPage(served, res, reference, c.context);
    }),
);

check(
  ["LIST-10"],
  "page or page_size below 1 or not an integer is refused with 400 or 422",
  readsSmall,
  async (target) => {
    const { conversationId } = await target.shared(smallConversation);
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
  readsSmall,
  async (target) => {
    // Every size from 1 to total + 1 is tried, so totals that are exact multiples of the page
    // size (where has_more goes wrong) are among them.
    const {
      conversationId,
      reference: { items: reference, total },
    } = await target.shared(smallConversation);
    // An exchange that never reached the listing is RESP-2's failure; pages need two messages.
    if (total < 2) skipCheck(`the small conversation lists ${total} message(s), too few to split into pages`);
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

check(["LIST-6"], "a page past the last is 2xx with no items and has_more false", readsSmall, async (target) => {
  const {
    conversationId,
    reference: { total },
  } = await target.shared(smallConversation);
  const pastTheEnd: Record<string, number>[] = [{ page: total + 1, page_size: 1 }, { page: 1000 }];
  for (const query of pastTheEnd) {
    const res = await target.client.list(conversationId, { query });
    const context = `listing ${JSON.stringify(query)} of a conversation of ${total} messages`;
    expect2xx(res, context);
    const page = expectJson(SpecMessagePage, res, context);
    expectSame(page.items, [], `${context}: items`, res);
    expectSame(page.has_more, false, `${context}: has_more`, res);
  }
});

check(
  ["LIST-7"],
  "total counts the listed conversation's messages only (the small conversation beside the one for refused changes)",
  { creates: 0, uses: [smallConversation, refusalTarget], smoke: true },
  async (target) => {
    const small = await target.shared(smallConversation);
    const other = await target.shared(refusalTarget);
    // Read now: the small conversation's recorded listings may predate the other conversation.
    await expectOwnMessagesOnly(target, { label: "the small conversation", recorded: small }, [
      { label: "the conversation for refused changes", recorded: other },
    ]);
  },
);

check(
  ["LIST-8"],
  "items are objects, citations are arrays, timestamps are RFC 3339, and updated_at advances with an exchange",
  readsSmall,
  async (target) => {
    const { exchanges, reference } = await target.shared(smallConversation);
    const first = exchanges[0]?.listingAfter;
    const last = exchanges.at(-1)?.listingAfter;
    if (first === undefined || last === undefined || exchanges.length < 2) {
      throw new HarnessError("internal", "the shared small conversation holds fewer than two exchanges");
    }
    reference.items.forEach((item, i) => {
      expectThat(
        typeof item === "object" && item !== null && !Array.isArray(item),
        `item #${i + 1} is not an object`,
        last.http,
      );
      expectShape(SpecMessageItem, item, `item #${i + 1}`, last.http);
    });
    // The listings read after its first and its last exchange.
    const { created_at: createdAt, updated_at: updatedAt } = first.page.conversation;
    const created = Date.parse(expectShape(Rfc3339, createdAt, "conversation.created_at", first.http));
    const updated = Date.parse(expectShape(Rfc3339, updatedAt, "conversation.updated_at", first.http));
    expectThat(created <= updated, `created_at ${createdAt} is after updated_at ${updatedAt}`, first.http);

    const laterUpdatedAt = last.page.conversation.updated_at;
    const next = Date.parse(expectShape(Rfc3339, laterUpdatedAt, "conversation.updated_at", last.http));
    expectSame(last.page.conversation.created_at, createdAt, "created_at after later exchanges", last.http);
    // "Advances" at the target's own resolution: whole-second timestamps may repeat within a second.
    const subSecond = [updatedAt, laterUpdatedAt].every((t) => /\.\d+/.test(String(t)));
    expectThat(
      subSecond ? next > updated : next >= updated,
      `updated_at did not advance with ${exchanges.length - 1} later exchange(s) (${updatedAt} → ${laterUpdatedAt})`,
      first.http,
      last.http,
    );
  },
);

check(
  ["LIST-9"],
  "listing an unknown conversation is 404 conversation_not_found",
  { creates: 0, smoke: true },
  async (target) => {
    const res = await target.client.list(randomUUID());
    expectStatus(res, 404, "listing an unknown conversation");
    expectErrorCode(res, CONVERSATION_NOT_FOUND, "listing an unknown conversation");
  },
);

check(
  ["LIST-11"],
  "every exchange of the small conversation was listed by the first read after it",
  readsSmall,
  async (target) => {
    const { exchanges } = await target.shared(smallConversation);
    expectListedAtOnce(target, "the small conversation", exchanges);
  },
);
