/**
 * What the interaction property reads of one stream: the first single-stream rule it breaks,
 * with the whole of what was wrong (a shape's explanation included), never the transcript.
 */
import { expect, test } from "vitest";
import { EVENT } from "../../schemas/index.ts";
import { completedEvents, event, handBuiltStream } from "../test-support/hand-built-streams.ts";
import { render } from "../model/violation.ts";
import { judgeStreamCreate } from "./observed.ts";

test("an SSE-4 counterexample keeps zod's explanation of the delta's shape", () => {
  const events = completedEvents("hi").map((e) => (e.event === EVENT.delta ? event(EVENT.delta, { type: EVENT.delta, delta: 7 }) : e));
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
  const unordered = handBuiltStream({ events: [...completedEvents("a").slice(1), event(EVENT.delta, { type: EVENT.delta })] });
  expect(judgeStreamCreate({ result: unordered }, 2).problem?.requirement).toBe("SSE-3");
});
