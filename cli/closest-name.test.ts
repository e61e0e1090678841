/** The tests of cli/closest-name.ts. */
import { expect, test } from "vitest";
import { closestName } from "./closest-name.ts";

const FLAGS = [
  "base-url",
  "api-key",
  "agent-id",
  "other-agent-id",
  "other-api-key",
  "max-creates",
  "port",
  "report-dir",
];

test.each([
  ["prot", "port"],
  ["base_url", "base-url"],
  ["BASE-URL", "base-url"],
  ["baseurl", "base-url"],
  ["max-create", "max-creates"],
  ["reprot-dir", "report-dir"],
  ["apikey", "api-key"],
])("%s is most likely --%s", (typed, meant) => {
  expect(closestName(typed, FLAGS)).toBe(meant);
});

test("a name far from every known one suggests none", () => {
  expect(closestName("frobnicate", FLAGS)).toBeUndefined();
  expect(closestName("x", [])).toBeUndefined();
});

test("variables: CONFORMANCE_BASEURL is CONFORMANCE_BASE_URL, CONFORMANCE_APIKEY is CONFORMANCE_API_KEY", () => {
  const variables = [
    "CONFORMANCE_BASE_URL",
    "CONFORMANCE_API_KEY",
    "CONFORMANCE_AGENT_ID",
    "CONFORMANCE_OTHER_API_KEY",
  ];
  expect(closestName("CONFORMANCE_BASEURL", variables)).toBe("CONFORMANCE_BASE_URL");
  expect(closestName("CONFORMANCE_APIKEY", variables)).toBe("CONFORMANCE_API_KEY");
  expect(closestName("CONFORMANCE_AGENT", variables)).toBe("CONFORMANCE_AGENT_ID");
});
