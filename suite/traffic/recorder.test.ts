/**
 * The traffic judge's bookkeeping: a judgement's failure becomes a violation from its data
 * (what was wrong, the exchanges), and a violation the model found is held without a throw.
 */
import { expect, test } from "vitest";
import { EVENT } from "../../schemas/index.ts";
import { streamRule } from "../judgements/stream-rules.ts";
import { completedEvents, event, handBuiltStream } from "../test-support/hand-built-streams.ts";
import { Recorder } from "./recorder.ts";

const LINE = "POST /v1/agents/a/responses/stream → 200 (#1)";

test("a shape's failure keeps zod's explanation as its detail, and the transcript apart", () => {
  const record = new Recorder();
  const events = completedEvents("hi").map((e) =>
    e.event === EVENT.delta ? event(EVENT.delta, { type: EVENT.delta }) : e,
  );
  const s = handBuiltStream({ events });
  record.judge("SSE-4", LINE, () => streamRule("SSE-4").judge(s, "a stream"));
  const [violation] = record.takeFresh();
  expect(violation?.requirement).toBe("SSE-4");
  expect(violation?.detail).toMatch(/^delta #1 does not have the expected shape:\n.+/);
  expect(violation?.detail).not.toContain("> POST");
  expect(violation?.transcripts).toEqual([s.transcript]);
  expect(record.tallies.get("SSE-4")?.observed).toBe(1);
});

test("holdViolation counts the exchange as observed and leaves the violation to the caller", () => {
  const record = new Recorder();
  const held = record.holdViolation("IDEM-1", LINE, "#2 replayed the key of #1 and was answered another result", []);
  expect(held).toMatchObject({
    requirement: "IDEM-1",
    level: "MUST",
    exchange: LINE,
    detail: "#2 replayed the key of #1 and was answered another result",
  });
  expect(record.tallies.get("IDEM-1")).toEqual({ observed: 1, violations: [], dropped: 0 });
  expect(record.takeFresh()).toEqual([]);
  record.release(held);
  expect(record.takeFresh()).toEqual([held]);
});
