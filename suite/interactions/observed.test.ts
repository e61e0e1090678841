/**
 * What the interaction property reads of one answer: the first single-stream rule a stream
 * breaks, or the first answer rule a plain answer's body breaks, with the whole of what was
 * wrong (a shape's explanation included), never the transcript.
 */
import { expect, test } from "vitest";
import { EVENT } from "../../schemas/index.ts";
import { completedEvents, event, handBuiltStream } from "../test-support/hand-built-streams.ts";
import { CONVERSATION, httpAnswer, listingPage, responseResult } from "../test-support/hand-built-answers.ts";
import { render } from "../model/violation.ts";
import { judgeListing, judgePlainCreate, judgeStreamCreate } from "./observed.ts";

test("an SSE-4 counterexample keeps zod's explanation of the delta's shape", () => {
  const events = completedEvents("hi").map((e) =>
    e.event === EVENT.delta ? event(EVENT.delta, { type: EVENT.delta, delta: 7 }) : e,
  );
  const s = handBuiltStream({ events });
  const { outcome, problem } = judgeStreamCreate({ result: s }, 3);
  expect(outcome.type).toBe("ok");
  expect(problem?.requirement).toBe("SSE-4");
  const [headline, ...explanation] = problem === undefined ? [] : render(problem.message).split("\n");
  expect(headline).toBe("#3: delta #1 does not have the expected shape:");
  expect(explanation.join("\n")).toMatch(/expected string.*\n.*delta/s);
  expect(problem === undefined ? "" : render(problem.message)).not.toContain("> POST");
});

test("a conforming stream shows no problem, and the first broken rule is the one named", () => {
  expect(judgeStreamCreate({ result: handBuiltStream() }, 1).problem).toBeUndefined();
  const unordered = handBuiltStream({
    events: [...completedEvents("a").slice(1), event(EVENT.delta, { type: EVENT.delta })],
  });
  expect(judgeStreamCreate({ result: unordered }, 2).problem?.requirement).toBe("SSE-3");
});

test("a 2xx create whose body is not a response result is a RESP-1 problem, with zod's explanation, and an unknown outcome", () => {
  const { outcome, problem } = judgePlainCreate(
    { result: httpAnswer({ conversation_id: CONVERSATION, citations: [] }) },
    4,
  );
  expect(outcome).toMatchObject({ type: "unknown", reason: "not a response result" });
  expect(problem?.requirement).toBe("RESP-1");
  expect(problem?.ops).toEqual([4]);
  expect(problem === undefined ? "" : render(problem.message)).toMatch(
    /^#4: the create: the JSON body does not have the expected shape:\n.*response/s,
  );
  expect(judgePlainCreate({ result: httpAnswer(responseResult()) }, 5)).toEqual({
    outcome: { type: "ok", status: 200, value: { conversationId: CONVERSATION, text: "Hello.", citations: "[]" } },
  });
});

test("a listing is judged by its body's shape alone: what a page says is the model's", () => {
  const broken = judgeListing({ result: httpAnswer({ items: [] }) }, 2);
  expect(broken.outcome).toMatchObject({ type: "unknown", reason: "not a listing page" });
  expect(broken.problem?.requirement).toBe("LIST-1");
  expect(broken.problem === undefined ? "" : render(broken.problem.message)).toMatch(
    /^#2: the listing: the JSON body does not have the expected shape:\n/,
  );
  // Another conversation's page, a page that does not add up and one above the cap: no problem of the answer alone.
  for (const page of [
    listingPage({ id: "0b6c2a55-4a4b-4c8e-9a52-6f1d1f3c1a01" }),
    listingPage({ total: 60, has_more: false }),
    listingPage({ page_size: 101, total: 101 }),
  ]) {
    const judged = judgeListing({ result: httpAnswer(page) }, 3);
    expect(judged.problem).toBeUndefined();
    expect(judged.outcome.type).toBe("ok");
  }
});
