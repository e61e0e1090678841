/**
 * What a listing should have shown, in words a reader can check against what it did show: the
 * totals this service's counting allows (as its listings so far taught the model, or every
 * counting still open), and which exchanges a page holds under that counting and order.
 * Words only: nothing here decides a verdict.
 */
import { joinWords, words, type Words } from "./violation.ts";
import type { Counting, CountingPair, ExchangeRecord, World } from "./world.ts";

const messages = (n: number) => `${n} message${n === 1 ? "" : "s"}`;

/** "#1, #2 and #3". */
export function opList(ops: readonly number[]): Words {
  const named = ops.map((op) => words`#${op}`);
  const last = named.at(-1);
  return named.length <= 1 || last === undefined
    ? (named[0] ?? words`none`)
    : words`${joinWords(named.slice(0, -1), ", ")} and ${last}`;
}

/** One counting: "2 messages per exchange" or "1 message per exchange after 2 before the first exchange". */
function pairText(pair: CountingPair): string {
  const per = `${messages(pair.perExchange)} per exchange`;
  return pair.base === 0 ? per : `${messages(pair.base)} before the first exchange, then ${per}`;
}

/** This service's counting as the model knows it, e.g. "this service lists 2 messages per exchange"; while unknown, what any counting keeps to. */
export function countingText(counting: Counting, maxBase: number): string {
  if (counting === "any") {
    return `the same number of messages for each exchange, after at most ${maxBase} before the first (this service has not yet shown how many)`;
  }
  if (counting.length === 1 && counting[0] !== undefined) return `this service lists ${pairText(counting[0])}`;
  return `this service lists ${counting.map(pairText).join(", or ")}: its listings so far allow each`;
}

/** Why the model holds this service to `counting`: a note when the listing's own total is all that settled it. */
export function settledBy(total: number, n: number, fromThisTotal: boolean): string {
  return fromThisTotal
    ? ` (the only counting by which ${messages(total)} hold ${n} exchange${n === 1 ? "" : "s"})`
    : "";
}

/**
 * The totals a conversation of `n` exchanges may list under `counting`: one value per counting
 * still possible, or, while any counting is, the series it allows (6–8, 12–14, 18–20, … for 6).
 */
export function expectedTotal(counting: Counting, n: number, maxBase: number): string {
  if (counting === "any") {
    const runs = [1, 2, 3].map((k) => (maxBase === 0 ? `${k * n}` : `${k * n}–${k * n + maxBase}`));
    return `${runs.join(", ")}, … messages`;
  }
  const totals = [...new Set(counting.map((c) => c.base + c.perExchange * n))].sort((a, b) => a - b);
  return `${totals.length === 1 ? totals[0] : `${totals.slice(0, -1).join(", ")} or ${totals.at(-1)}`} messages`;
}

/** Where exchange `j` (0-based, in the order they took effect) lies in the listing order: its first and last item, 0-based. */
function span(pair: CountingPair, j: number, total: number, order: World["order"]): { first: number; last: number } {
  const start = pair.base + j * pair.perExchange;
  const end = start + pair.perExchange;
  return order === "newest-first" ? { first: total - end, last: total - start - 1 } : { first: start, last: end - 1 };
}

/**
 * What a page holds under one counting and a known order: its items by number, the exchanges
 * wholly on it, those partly on it, and the page each exchange named in `also` starts on.
 */
export function pageHolds(
  exchanges: readonly ExchangeRecord[],
  page: { readonly page: number; readonly pageSize: number; readonly total: number; readonly length: number },
  pair: CountingPair,
  order: World["order"],
  also: readonly number[],
  /** The counting was learned from this page's total alone (no earlier listing had settled it). */
  fromThisTotal: boolean,
): Words {
  const offset = (page.page - 1) * page.pageSize;
  const items = page.length === 0 ? "no items" : `items ${offset + 1}–${offset + page.length} of ${page.total}`;
  const whole: number[] = [];
  const part: number[] = [];
  const pageOf = new Map<number, number>();
  exchanges.forEach((e, j) => {
    const { first, last } = span(pair, j, page.total, order);
    pageOf.set(e.op, Math.floor(first / page.pageSize) + 1);
    if (first >= offset && last < offset + page.length) whole.push(e.op);
    else if (last >= offset && first < offset + page.length) part.push(e.op);
  });
  const held =
    whole.length === 0 ? "no whole exchange" : words`the exchange${whole.length === 1 ? "" : "s"} of ${opList(whole)}`;
  const partly = part.length === 0 ? "" : words` and part of ${opList(part)}`;
  const elsewhere = also
    .filter((op) => !whole.includes(op))
    .map((op) => words`#${op} on page ${pageOf.get(op) ?? "?"}`);
  const where = elsewhere.length === 0 ? "" : words`; ${joinWords(elsewhere, ", ")}`;
  const ordered = order === "newest-first" ? "newest first" : "oldest first";
  return words`page ${page.page} holds ${held}${partly} (its ${items}, ${ordered})${where}: ${countingText([pair], 0)}${settledBy(page.total, exchanges.length, fromThisTotal)}`;
}
