import { expect, test } from "vitest";
import { formatTranscript } from "../http/transcript.ts";
import {
  INCONCLUSIVE_MESSAGE,
  incompleteSampleReport,
  REUSED_KEY_TRANSCRIPT,
  sampleReport,
} from "../test-support/sample-report.ts";
import { familyLines, problemLines, summaryLines } from "./console-summary.ts";
import { tallyLine } from "./progress.ts";

test("one line per family of checks, in the run's order: its checks as the progress counted them, then the requirements they judge, each unit named", () => {
  expect(familyLines(sampleReport())).toEqual([
    "auth           2/2 checks  1 failed    2 requirements judged:  1 pass   0 fail   1 warn   0 skip   0 inconclusive",
    "idempotency    3/3 checks  1 failed    2 requirements judged:  1 pass   1 fail   0 warn   0 skip   0 inconclusive",
    "streaming      1/1 check  1 failed     1 requirement  judged:  0 pass   1 fail   0 warn   0 skip   0 inconclusive",
    "scope          1/1 check  1 skipped    1 requirement  judged:  0 pass   0 fail   0 warn   1 skip   0 inconclusive",
  ]);
});

test("a family's line starts with what its last progress line said", () => {
  const line = familyLines(sampleReport()).find((l) => l.startsWith("idempotency"));
  expect(
    line?.startsWith(
      tallyLine(
        { family: "idempotency", total: 3, passed: 2, failed: 1, skipped: 0, inconclusive: 0 },
        "idempotency".length,
      ),
    ),
  ).toBe(true);
});

test("a failure names the requirement, its spec sentence, the check and the exchange that showed it", () => {
  const text = problemLines(sampleReport()).join("\n");
  expect(text).toContain("FAIL IDEM-3 (MUST)");
  expect(text).toContain("  spec: The same key with a different payload returns HTTP 409.");
  expect(text).toContain("  check: the same key with a different payload is 409");
  expect(text).toContain("  exchange:");
  expect(text).toContain(`> POST ${REUSED_KEY_TRANSCRIPT.request.url}`);
  expect(text).toContain("WARN AUTH-2 (SHOULD)");
});

test("an exchange the failure message already quotes is not printed a second time", () => {
  const report = sampleReport();
  const quoted = `expected 409, got 200\n${formatTranscript(REUSED_KEY_TRANSCRIPT)}`;
  report.requirements = report.requirements.map((r) =>
    r.id === "IDEM-3" ? { ...r, tests: r.tests.map((t) => (t.status === "fail" ? { ...t, message: quoted } : t)) } : r,
  );
  const text = problemLines(report).join("\n");
  expect(text.split(`> POST ${REUSED_KEY_TRANSCRIPT.request.url}`)).toHaveLength(2);
  expect(text).not.toContain("  exchange:");
});

test("an incomplete run ends by naming every MUST it could not judge, with why, then INCOMPLETE", () => {
  const lines = summaryLines(incompleteSampleReport(), "reports");
  expect(lines.slice(-6)).toEqual([
    "Not judged: 2 MUST requirement(s) were skipped or inconclusive (exit 3 unless something failed):",
    `  LIST-1 inconclusive: ${INCONCLUSIVE_MESSAGE}`,
    "  SCOPE-3 skip: needs --other-api-key",
    "",
    "Result: INCOMPLETE — 1 pass, 0 fail, 0 warn, 2 skip, 1 inconclusive; 17 of 60 creates; 5 conversation(s) cleaned up",
    "Reports: reports",
  ]);
  expect(summaryLines(sampleReport(), "reports").join("\n")).not.toContain("Not judged");
});

test("what the target made a check wait for is listed, apart from the verdicts", () => {
  const lines = summaryLines(incompleteSampleReport(), "reports");
  const at = lines.indexOf("The target made these checks wait (not a verdict):");
  expect(at).toBeGreaterThan(-1);
  expect(lines[at + 1]).toBe(
    "  a finished exchange is listed in order: 2 retries (429×2), 3.0 s waited; listing settled after 1 more read(s), 0.5 s",
  );
  expect(lines[at + 2]).toBe("");
  expect(summaryLines(sampleReport(), "reports").join("\n")).not.toContain("made these checks wait");
});

test("a long counterexample is cut on the console, but its replay line is printed whole", () => {
  const report = sampleReport();
  const history = Array.from(
    { length: 60 },
    (_, i) => `    #${i + 1} lane 0 GET /v1/agents/agent-a/conversations/C1/messages → 200`,
  );
  const replay = "npm run conformance -- --only interactions --seed 7 --path 0 --report-dir reports-replay-7-0";
  const message = [
    "the interaction property found IDEM-3",
    "  minimal history (60 of 60 operations):",
    ...history,
    `  replay: ${replay}`,
  ].join("\n");
  report.requirements = report.requirements.map((r) =>
    r.id === "IDEM-3" ? { ...r, tests: r.tests.map((t) => (t.status === "fail" ? { ...t, message } : t)) } : r,
  );
  const text = problemLines(report).join("\n");
  expect(text).toContain("more lines in conformance.json");
  expect(text).not.toContain("#60 lane 0");
  expect(text).toContain(`replay: ${replay}`);
});
