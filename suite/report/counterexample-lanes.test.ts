import { expect, test } from "vitest";
import type { Counterexample } from "./report-types.ts";
import { renderCounterexample } from "./counterexample-lanes.ts";

const counterexample: Counterexample = {
  requirement: "RESP-2",
  message: "#4 listed conversation C1 in full (4 messages) without the exchange of #3",
  expected: "each of its 3 exchange(s) once: #1, #2, #3",
  operations: [
    { n: 1, lane: 0, startMs: 0, endMs: 5, request: "POST /v1/agents/agent-a/responses key=K1 message=m1", answer: "200 conversation C1", overlaps: [] },
    { n: 2, lane: 1, startMs: 10, endMs: 60, request: "POST /v1/agents/agent-a/responses/stream key=K2 message=m2 conversation=C1", answer: "200 completed conversation C1", overlaps: [3] },
    { n: 3, lane: 2, startMs: 20, endMs: 50, request: `POST <script>alert(1)</script>`, answer: "200 conversation C1", overlaps: [2] },
    { n: 4, lane: 0, startMs: 70, endMs: 72, request: "GET /v1/agents/agent-a/conversations/C1/messages", answer: "200 total 4, 4 item(s)", overlaps: [] },
  ],
  historyLength: 23,
  seed: 42,
  path: "3",
  confirmation: "confirmed",
  replay: "npm run conformance -- --only interactions --seed 42 --path 3",
};

test("a counterexample shows one lane per connection, overlapping bars where operations overlapped, and the replay command", () => {
  const page = String(renderCounterexample(counterexample));
  expect(page.match(/class="lane"/g)).toHaveLength(3);
  // #2 (10–60 ms) and #3 (20–50 ms) of 72 ms overlap on their lanes.
  expect(page).toContain('style="left:13.89%;width:69.44%"');
  expect(page).toContain('style="left:27.78%;width:41.67%"');
  expect(page).toContain("(overlaps #3)");
  expect(page).toContain("npm run conformance -- --only interactions --seed 42 --path 3");
  expect(page).toContain("Counterexample: RESP-2 (4 of 23 operations, confirmed)");
});

test("what the target sent back is escaped", () => {
  const page = String(renderCounterexample(counterexample));
  expect(page).not.toContain("<script>");
  expect(page).toContain("&lt;script&gt;");
});
