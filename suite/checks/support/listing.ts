/**
 * Listing helpers shared by the listing checks: a reference listing, the LIST-5 page rules,
 * LIST-7 against the run's other conversations and LIST-11 over their recorded exchanges.
 */
import { SpecMessagePage } from "../../../schemas/index.ts";
import { cutShort, expectSame, expectThat, fail, inconclusiveIfCutShort } from "../../judgements/expect.ts";
import type { HttpResult } from "../../http/types.ts";
import type { Target } from "../runtime/types.ts";
import { answerRule } from "../../judgements/answer-rules.ts";
import { readAllPages } from "./conversations.ts";
import type { RecordedConversation, RecordedExchange } from "./recorded.ts";

export const MAX_PAGE_SIZE = 100;

/** A streamed exchange the suite's own timeout closed before its terminal event: its outcome is unknown. */
export function abandonedBySuite(exchange: RecordedExchange): boolean {
  return exchange.stream !== undefined && cutShort(exchange.stream) !== undefined;
}

/** Every message, in the order pages of 100 give them; `total` must agree with what is there. */
export async function referenceListing(target: Target, conversationId: string) {
  const { items, pages } = await readAllPages(target, conversationId, MAX_PAGE_SIZE);
  const total = pages[0]?.page.total ?? 0;
  expectSame(
    items.length,
    total,
    "the number of messages read in pages of 100, compared with total",
    ...pages.map((p) => p.http),
  );
  return { items, total };
}

/**
 * LIST-5 for one served page (`page`, as read from `http`), judged by what the server echoed:
 * the items are exactly that slice of the reference listing, total is stable, and has_more is exact.
 */
export function expectConsistentPage(
  page: SpecMessagePage,
  http: HttpResult,
  reference: readonly unknown[],
  context: string,
): void {
  expectSame(page.total, reference.length, `${context}: total`, http);
  answerRule("LIST-5").judge({ to: "list", http }, context);
  const offset = (page.page - 1) * page.page_size;
  expectSame(
    page.items,
    reference.slice(offset, offset + page.page_size),
    `${context}: the items of page ${page.page} of size ${page.page_size}`,
    http,
  );
}

interface NamedConversation {
  label: string;
  recorded: RecordedConversation;
}

/**
 * LIST-7, read now that `others` exist too: the subject's `total` is the number of messages it
 * lists, and none of them is a message sent to one of the others.
 */
export async function expectOwnMessagesOnly(
  target: Target,
  subject: NamedConversation,
  others: readonly NamedConversation[],
): Promise<void> {
  const { items, pages } = await readAllPages(target, subject.recorded.conversationId, MAX_PAGE_SIZE);
  const evidence = pages.slice(0, 1).map((p) => p.http);
  const total = pages[0]?.page.total ?? 0;
  expectThat(
    total === items.length,
    `${subject.label}: total is ${total}, but its pages of ${MAX_PAGE_SIZE} list ${items.length} messages (total counts this conversation's messages only)`,
    ...evidence,
  );
  const listed = JSON.stringify(items);
  for (const other of others) {
    const leaked = other.recorded.exchanges.filter((e) => listed.includes(e.message)).length;
    expectThat(
      leaked === 0,
      `${subject.label}'s listing holds ${leaked} message(s) sent to ${other.label}`,
      ...evidence,
    );
  }
}

/**
 * LIST-11 over recorded exchanges: each was in the first listing read after it. The fixtures
 * read again (with back-off, up to --settle-ms) until the listing showed an exchange; an
 * exchange that needed those extra reads, or never showed, was not listed at once.
 * An exchange whose stream the suite itself closed before its terminal event (a timeout of its
 * own) has an unknown outcome: the service may have cancelled it and stored nothing, rightly.
 * It counts for nothing; when nothing else is left, LIST-11 is inconclusive.
 */
export function expectListedAtOnce(
  target: Pick<Target, "settleMs">,
  label: string,
  recorded: readonly RecordedExchange[],
): void {
  const exchanges = recorded.filter((e) => !abandonedBySuite(e));
  const abandoned = recorded.find(abandonedBySuite);
  if (exchanges.length === 0 && abandoned?.stream !== undefined) {
    inconclusiveIfCutShort(
      abandoned.stream,
      `every exchange of ${label} was a stream the suite closed before it finished, so whether it was stored is unknown`,
    );
  }
  const shown = (e: RecordedExchange) => e.listingAfter.page.total > e.totalBefore;
  const late = exchanges.filter((e) => e.listingAfter.extraReads > 0 || !shown(e));
  if (late.length === 0) return;
  // e.g. "2 needed 1 extra read, 1 still not listed after 12 extra reads"
  const groups = new Map<string, number>();
  for (const e of late) {
    const reads = `${e.listingAfter.extraReads} extra read${e.listingAfter.extraReads === 1 ? "" : "s"}`;
    const how = shown(e) ? `needed ${reads}` : `still not listed after ${reads}`;
    groups.set(how, (groups.get(how) ?? 0) + 1);
  }
  const summary = [...groups].map(([how, n]) => `${n} ${how}`).join(", ");
  const skipped = recorded.length - exchanges.length;
  const unknown = skipped > 0 ? `; ${skipped} stream(s) the suite closed before they finished are not counted` : "";
  fail(
    `${late.length} of ${exchanges.length} exchanges of ${label} were not listed by the first read after them ` +
      `(${summary}; the suite reads again with back-off for up to --settle-ms ${target.settleMs} ms${unknown})`,
    ...late.slice(0, 1).map((e) => e.listingAfter.http),
  );
}
