/**
 * The answer-rule table that the checks, the traffic judge and the interaction property share:
 * one rule per requirement, what of the answer each reads, and which answers can show it.
 */
import { expect, test } from "vitest";
import { CONVERSATION, httpAnswer, listingPage, responseResult } from "../test-support/hand-built-answers.ts";
import { ANSWER_RULES, answerRule, type PlainAnswer } from "./answer-rules.ts";
import { failureOf } from "../test-support/failure-of.ts";

const shownBy = (a: PlainAnswer) => ANSWER_RULES.filter((rule) => rule.when(a)).map((rule) => rule.id);
const listing = (json: unknown, conversationId?: string): PlainAnswer => ({
  to: "list",
  http: httpAnswer(json),
  conversationId,
});

test("the table holds RESP-1, LIST-1, LIST-5 and LIST-3 once each; the page rules come after the body's", () => {
  expect(ANSWER_RULES.map((rule) => [rule.id, rule.reads])).toEqual([
    ["RESP-1", "body"],
    ["LIST-1", "body"],
    ["LIST-5", "page"],
    ["LIST-3", "page"],
  ]);
});

test("a create shows RESP-1 only, a listing every listing rule", () => {
  expect(shownBy({ to: "create", http: httpAnswer(responseResult()) })).toEqual(["RESP-1"]);
  expect(shownBy(listing(listingPage(), CONVERSATION))).toEqual(["LIST-1", "LIST-5", "LIST-3"]);
});

test("a conforming answer passes every rule it can show", () => {
  const answers: PlainAnswer[] = [
    { to: "create", http: httpAnswer(responseResult()) },
    listing(listingPage({ page: 2, page_size: 1 }), CONVERSATION),
  ];
  for (const a of answers)
    for (const rule of ANSWER_RULES.filter((r) => r.when(a))) expect(() => rule.judge(a, "the answer")).not.toThrow();
});

test("LIST-1 holds a page to the conversation asked for when the answer names it, else to its shape alone", () => {
  const other = listingPage({ id: "0b6c2a55-4a4b-4c8e-9a52-6f1d1f3c1a01" });
  expect(failureOf(() => answerRule("LIST-1").judge(listing(other, CONVERSATION), "a listing")).what).toBe(
    `the listing of ${CONVERSATION} names conversation 0b6c2a55-4a4b-4c8e-9a52-6f1d1f3c1a01`,
  );
  expect(() => answerRule("LIST-1").judge(listing(other), "a listing")).not.toThrow();
  expect(failureOf(() => answerRule("LIST-1").judge(listing({ items: [] }), "a listing")).what).toMatch(
    /^a listing: the JSON body does not have the expected shape:\n/,
  );
});

test("each rule throws its failure as data: what was wrong, and the exchange", () => {
  const create: PlainAnswer = { to: "create", http: httpAnswer({ conversation_id: CONVERSATION, citations: [] }) };
  const resp1 = failureOf(() => answerRule("RESP-1").judge(create, "a create"));
  expect(resp1.what).toMatch(/^a create: the JSON body does not have the expected shape:\n.*response/s);
  expect(resp1.transcripts).toEqual([create.http.transcript]);
  expect(
    failureOf(() => answerRule("LIST-5").judge(listing(listingPage({ total: 60, has_more: false })), "a listing")).what,
  ).toBe("a listing: has_more for page 1 of size 50 with total 60: expected true, got false");
  const oversized = listingPage({ page_size: 101, total: 101 });
  expect(failureOf(() => answerRule("LIST-3").judge(listing(oversized), "a listing")).what).toBe(
    "a listing: served with page_size 101 (maximum 100)",
  );
});
