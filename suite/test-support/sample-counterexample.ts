import type { ConformanceReport, Counterexample, RequirementReport } from "../report/report-types.ts";
import { renderCounterexample } from "../interactions/counterexample.ts";
import { requirementById } from "../../requirements/catalog.ts";
import { sampleReport } from "./sample-report.ts";

/**
 * An interaction counterexample for the renderer's tests: #2 and #3 overlap on two lanes, #1
 * and #4 run alone before and after them, and #3 carries markup the target sent back.
 */
export const SAMPLE_COUNTEREXAMPLE: Counterexample = {
  requirement: "RESP-2",
  message: "#4 listed conversation C1 in full (4 messages) without the exchange of #3",
  expected: "each of its 3 exchange(s) once: #1, #2, #3",
  operations: [
    {
      n: 1,
      lane: 0,
      startMs: 0,
      endMs: 5,
      request: "POST /v1/agents/agent-a/responses key=K1 message=m1",
      answer: "200 conversation C1",
      overlaps: [],
      who: "primary",
    },
    {
      n: 2,
      lane: 1,
      startMs: 10,
      endMs: 60,
      request: "POST /v1/agents/agent-a/responses/stream key=K2 message=m2 conversation=C1",
      answer: "200 completed conversation C1",
      overlaps: [3],
      who: "primary",
    },
    {
      n: 3,
      lane: 2,
      startMs: 20,
      endMs: 50,
      request: `POST <script>alert(1)</script>`,
      answer: "200 conversation C1",
      overlaps: [2],
      who: "primary",
    },
    {
      n: 4,
      lane: 0,
      startMs: 70,
      endMs: 72,
      request: "GET /v1/agents/agent-a/conversations/C1/messages",
      answer: "200 total 4, 4 item(s)",
      overlaps: [],
      who: "primary",
    },
  ],
  historyLength: 23,
  seed: 42,
  path: "3",
  confirmation: "confirmed",
  replay: "npm run conformance -- --only interactions --seed 42 --path 3",
};

/** The failure message the interaction check writes: a headline, then the whole transcript. */
export const COUNTEREXAMPLE_MESSAGE = `the interaction property (3 sequence(s), 41 operations) found ${renderCounterexample(SAMPLE_COUNTEREXAMPLE)}`;

/** The sample report with RESP-2 failed by the property, as the runner reports it. */
export function counterexampleReport(): ConformanceReport {
  const report = sampleReport();
  const catalog = requirementById("RESP-2");
  if (!catalog) throw new Error("unknown requirement RESP-2");
  const { level, family, summary, spec } = catalog;
  const failed: RequirementReport = {
    id: "RESP-2",
    level,
    family,
    summary,
    spec,
    status: "fail",
    reason: COUNTEREXAMPLE_MESSAGE,
    tests: [
      {
        name: "interactions: every plain exchange is listed once, in order, whatever ran at the same time",
        file: "interactions",
        status: "fail",
        durationMs: 900,
        message: COUNTEREXAMPLE_MESSAGE,
        counterexample: SAMPLE_COUNTEREXAMPLE,
      },
    ],
  };
  return {
    ...report,
    counts: { ...report.counts, fail: report.counts.fail + 1, tests: report.counts.tests + 1 },
    requirements: [...report.requirements, failed],
  };
}
