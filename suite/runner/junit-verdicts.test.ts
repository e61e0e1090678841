/**
 * junit.xml tells what conformance.json tells: skipped and inconclusive tests carry their reason,
 * every MUST left unjudged is a skipped test case, and a run stopped before any check is an error.
 */

import { describe, expect, test } from "vitest";
import { incompleteSampleReport, INCONCLUSIVE_MESSAGE } from "../test-support/sample-report.ts";
import { errorJunit, withVerdicts, xmlText } from "./junit-verdicts.ts";

/** vitest's JUnit output for the sample's two unjudged tests: bare <skipped/>. */
const VITEST_JUNIT = `<?xml version="1.0" encoding="UTF-8" ?>
<testsuites name="conformance" tests="2" failures="0" errors="0" time="0.1">
    <testsuite name="suite/checks/listing.check.ts" tests="1" failures="0" errors="0" skipped="1" time="0">
        <testcase classname="suite/checks/listing.check.ts" name="a finished exchange is listed in order" time="0">
            <skipped/>
        </testcase>
    </testsuite>
    <testsuite name="suite/checks/scope.check.ts" tests="1" failures="0" errors="0" skipped="1" time="0">
        <testcase classname="suite/checks/scope.check.ts" name="another key cannot list the conversation" time="0">
            <skipped/>
        </testcase>
    </testsuite>
</testsuites>
`;

describe("an incomplete run's junit.xml", () => {
  const xml = withVerdicts(VITEST_JUNIT, incompleteSampleReport());

  test("each skipped or inconclusive test carries its reason", () => {
    expect(xml).toContain(`<skipped message="${xmlText(`inconclusive: ${INCONCLUSIVE_MESSAGE}`)}"/>`);
    expect(xml).toContain('<skipped message="needs --other-api-key"/>');
    expect(xml).not.toContain("<skipped/>");
  });

  test("every unjudged MUST is a skipped test case with why, and is counted", () => {
    const suite = xml.match(/<testsuite name="MUST requirements not judged"[\s\S]*?<\/testsuite>/)?.[0] ?? "";
    expect(suite).toContain('tests="2" failures="0" errors="0" skipped="2"');
    expect(suite).toMatch(
      /<testcase classname="not judged" name="\[LIST-1\] MUST [^"]*" time="0">\s*<skipped message="LIST-1 inconclusive: /,
    );
    expect(suite).toMatch(
      /<testcase classname="not judged" name="\[SCOPE-3\] MUST [^"]*" time="0">\s*<skipped message="SCOPE-3 skipped: needs --other-api-key"\/>/,
    );
    expect(suite).not.toContain("DEL-2");
    expect(xml).toContain('<testsuites name="conformance" tests="4"');
    expect(xml.trimEnd().endsWith("</testsuites>")).toBe(true);
  });
});

test("a run stopped before any check is one errored test case with the diagnosis", () => {
  const xml = errorJunit('the API key was refused (401) by "x": check --api-key', "http://127.0.0.1:9 (agent a)");
  expect(xml).toContain('errors="1"');
  expect(xml).toContain('<error message="the API key was refused (401) by &quot;x&quot;: check --api-key">');
});
