import { expect, test } from "vitest";
import { formatTranscript } from "../harness/transcript.ts";
import { REUSED_KEY_TRANSCRIPT, sampleReport } from "../report/sample-report.ts";
import { familyLines, problemLines } from "./console-summary.ts";

test("one line per family counts its requirements by status", () => {
  expect(familyLines(sampleReport())).toContainEqual(expect.stringMatching(/^idempotency\s+1 pass\s+1 fail\s+0 warn\s+0 skip$/));
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
