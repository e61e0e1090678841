import fc from "fast-check";
import { expect, test } from "vitest";
import { InconclusiveError } from "../../http/errors.ts";
import { ExpectationError, fail } from "../../judgements/expect.ts";
import type { HttpResult } from "../../http/types.ts";
import { checkProperty } from "./property.ts";

const answer = (pageSize: number): HttpResult => ({
  status: 200,
  headers: {},
  text: `{"page_size":${pageSize}}`,
  json: { page_size: pageSize },
  transcript: {
    request: { method: "GET", url: `http://target/v1/x?page_size=${pageSize}`, headers: {} },
    response: { status: 200, headers: {}, body: `{"page_size":${pageSize}}` },
    durationMs: 1,
  },
});

test("a failure names the failed expectation, the smallest failing case with its seed and path, and that case's exchange", async () => {
  const property = fc.asyncProperty(fc.integer({ min: 1, max: 200 }), async (size) => {
    const res = answer(size);
    if (size > 100) fail(`served with page_size ${size} (maximum 100)`, res);
  });
  const error = await checkProperty(property, { seed: 7, numRuns: 100 }).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ExpectationError);
  const message = (error as Error).message;
  expect(message).toMatch(
    /^the smallest failing case \[101\] \(seed 7, path [\d:]+; \d+ run\(s\), \d+ shrink\(s\)\): served with page_size 101 \(maximum 100\)/,
  );
  expect(message).toContain("GET http://target/v1/x?page_size=101");
  expect(message).not.toContain("Counterexample:");
});

test("a target that never let the property finish stays inconclusive", async () => {
  const property = fc.asyncProperty(fc.nat(), async () => {
    throw new InconclusiveError("timeout", "no answer within 10 ms", "--request-timeout");
  });
  await expect(checkProperty(property, { seed: 1, numRuns: 3 })).rejects.toBeInstanceOf(InconclusiveError);
});

test("a passing property passes", async () => {
  await expect(
    checkProperty(
      fc.asyncProperty(fc.nat(), async () => {}),
      { seed: 1, numRuns: 5 },
    ),
  ).resolves.toBeUndefined();
});
