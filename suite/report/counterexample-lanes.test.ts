import { expect, test } from "vitest";
import { barGeometry, renderCounterexample } from "./counterexample-lanes.ts";
import { SAMPLE_COUNTEREXAMPLE as counterexample } from "../test-support/sample-counterexample.ts";

const operation = (n: number) => {
  const found = counterexample.operations.find((o) => o.n === n);
  if (!found) throw new Error(`no operation #${n}`);
  return found;
};

test("a counterexample shows one lane per connection, overlapping bars where operations overlapped, and the replay command", () => {
  const page = String(renderCounterexample(counterexample));
  expect(page.match(/class="lane"/g)).toHaveLength(3);
  // #2 (10–60 ms) and #3 (20–50 ms) of 72 ms overlap on their lanes.
  expect(page).toContain('<rect x="13.89%" y="2" width="69.44%"');
  expect(page).toContain('<rect x="27.78%" y="2" width="41.67%"');
  expect(page).toContain("(overlaps #3)");
  expect(page).toContain("npm run conformance -- --only interactions --seed 42 --path 3");
  expect(page).toContain("Counterexample: RESP-2 (4 of 23 operations, confirmed)");
});

test("the page's policy refuses inline styles, so nothing is placed by a style attribute", () => {
  expect(String(renderCounterexample(counterexample))).not.toMatch(/\sstyle=/);
});

test("a bar stays inside its track and visible however short or late its operation", () => {
  expect(barGeometry(operation(4), 72)).toEqual({ x: 97.22, width: 2.78 });
  expect(barGeometry({ ...operation(4), startMs: 72, endMs: 72 }, 72)).toEqual({ x: 98.5, width: 1.5 });
  expect(barGeometry({ ...operation(1), startMs: 0, endMs: 0 }, 72)).toEqual({ x: 0, width: 1.5 });
});

test("the transcript is shown once, one preformatted line per operation", () => {
  const page = String(renderCounterexample(counterexample));
  const pre = page.match(/<pre class="operations">([\s\S]*?)<\/pre>/)?.[1] ?? "";
  expect(pre.split("\n")).toEqual([
    "#1 lane 0 POST /v1/agents/agent-a/responses key=K1 message=m1 → 200 conversation C1",
    "#2 lane 1 POST /v1/agents/agent-a/responses/stream key=K2 message=m2 conversation=C1 (overlaps #3) → 200 completed conversation C1",
    "#3 lane 2 POST &lt;script&gt;alert(1)&lt;/script&gt; (overlaps #2) → 200 conversation C1",
    "#4 lane 0 GET /v1/agents/agent-a/conversations/C1/messages → 200 total 4, 4 item(s)",
  ]);
  expect(page.match(/#4 lane 0/g)).toHaveLength(1);
});

test("what the target sent back is escaped", () => {
  const page = String(renderCounterexample(counterexample));
  expect(page).not.toContain("<script>");
  expect(page).toContain("&lt;script&gt;");
});
