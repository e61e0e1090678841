/**
 * The stream-rule table that the checks, the traffic judge and the interaction property share:
 * one rule per requirement, and which streams can show each.
 */
import { expect, test } from "vitest";
import { EVENT } from "../../schemas/index.ts";
import { completedEvents, event, handBuiltStream } from "../test-support/hand-built-streams.ts";
import { failureOf } from "../test-support/failure-of.ts";
import { STREAM_RULES, streamRule } from "./stream-rules.ts";

const shownBy = (s: ReturnType<typeof handBuiltStream>) =>
  STREAM_RULES.filter((rule) => rule.when(s)).map((rule) => rule.id);

test("the table holds SSE-1 to SSE-7 once each, SSE-6 last so a completed stream's rules come first", () => {
  expect(STREAM_RULES.map((rule) => rule.id)).toEqual(["SSE-1", "SSE-2", "SSE-3", "SSE-4", "SSE-5", "SSE-7", "SSE-6"]);
  expect(streamRule("SSE-4").reads).toBe("events");
});

test("a completed stream shows every rule but SSE-6, an error stream every rule but SSE-5 and SSE-7", () => {
  expect(shownBy(handBuiltStream())).toEqual(["SSE-1", "SSE-2", "SSE-3", "SSE-4", "SSE-5", "SSE-7"]);
  const failed = handBuiltStream({
    events: [
      event(EVENT.created, { type: EVENT.created }),
      event(EVENT.error, { type: EVENT.error, code: "boom", message: "failed" }),
    ],
  });
  expect(shownBy(failed)).toEqual(["SSE-1", "SSE-2", "SSE-3", "SSE-4", "SSE-6"]);
});

test("an answer that is not an event stream shows SSE-1 only", () => {
  expect(shownBy(handBuiltStream({ headers: { "content-type": "application/json" }, events: [] }))).toEqual(["SSE-1"]);
});

test("a conforming stream passes every rule it can show", () => {
  const s = handBuiltStream({ events: completedEvents("a", "b", "c") });
  for (const rule of STREAM_RULES.filter((r) => r.when(s))) expect(() => rule.judge(s, "the stream")).not.toThrow();
});

test("each rule throws its failure as data: what was wrong, and the exchange", () => {
  const s = handBuiltStream({
    events: [
      event(EVENT.created, { type: EVENT.created }),
      event(EVENT.delta, { type: EVENT.delta }),
      ...completedEvents().slice(1),
    ],
  });
  const failure = failureOf(() => streamRule("SSE-4").judge(s, "the stream"));
  expect(failure.what).toMatch(/^delta #1 does not have the expected shape:\n.*delta/s);
  expect(failure.transcripts).toEqual([s.transcript]);
});
