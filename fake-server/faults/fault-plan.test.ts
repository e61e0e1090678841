import { expect, test } from "vitest";
import { ApiError } from "../http/api-error.ts";
import { DEFAULT_BEHAVIOR } from "../behavior/behavior.ts";
import { NO_FAULTS, baseFaultPlan, injectedStatusError, parseFaultHeader } from "./fault-plan.ts";

test("no header means no faults", () => {
  expect(parseFaultHeader(undefined, true)).toBe(NO_FAULTS);
  expect(parseFaultHeader(undefined, false)).toBe(NO_FAULTS);
});

test("a paced behavior gives every create a base plan; header items replace its items one by one", () => {
  expect(baseFaultPlan(DEFAULT_BEHAVIOR)).toBe(NO_FAULTS);
  const base = baseFaultPlan({ pacing: { firstEventMs: 150, deltaDelayMs: 6 } });
  expect(base).toEqual({ ...NO_FAULTS, firstEventDelayMs: 150, deltaDelayMs: 6, paced: true });
  expect(parseFaultHeader(undefined, true, base)).toBe(base);
  expect(parseFaultHeader("delta-delay=50,error-after=2", true, base)).toEqual({
    ...base,
    deltaDelayMs: 50,
    errorAfter: 2,
  });
});

test("every item is read, with spaces around items and values allowed", () => {
  expect(parseFaultHeader("first-event-delay=10, delta-delay = 5,error-after=2,drop-after=3", true)).toEqual({
    ...NO_FAULTS,
    firstEventDelayMs: 10,
    deltaDelayMs: 5,
    errorAfter: 2,
    dropAfter: 3,
  });
  expect(parseFaultHeader("status=429,retry-after=7", true)).toMatchObject({ status: 429, retryAfterSeconds: 7 });
});

test.each([
  ["", "not of the form"],
  ["delta-delay", "not of the form"],
  ["delta-delay=", "whole number"],
  ["delta-delay=-1", "whole number"],
  ["delta-delay=1.5", "whole number"],
  ["first-event-delay=60001", "0 to 60000"],
  ["status=404", "429, 500 or 503"],
  ["status=5e2", "429, 500 or 503"],
  ["error-after=1,error-after=2", "more than once"],
  ["explode=1", 'unknown item "explode"'],
  ["retry-after=3", "only applies together with"],
  ["delta-delay=5,", "not of the form"],
])("%j is a 400 invalid_request naming the problem (%s)", (header, fragment) => {
  let thrown: unknown;
  try {
    parseFaultHeader(header, true);
  } catch (error) {
    thrown = error;
  }
  expect(thrown).toBeInstanceOf(ApiError);
  expect(thrown).toMatchObject({ status: 400, code: "invalid_request" });
  expect((thrown as ApiError).message).toContain(fragment);
});

test("with fault injection disabled the header itself is refused", () => {
  expect(() => parseFaultHeader("delta-delay=5", false)).toThrow(/fault injection is disabled/);
});

test("injected statuses carry their code, and 429 and 503 a Retry-After", () => {
  expect(injectedStatusError(NO_FAULTS)).toBeUndefined();
  expect(injectedStatusError(parseFaultHeader("status=429", true))).toMatchObject({
    status: 429,
    code: "rate_limited",
    headers: { "Retry-After": "1" },
  });
  expect(injectedStatusError(parseFaultHeader("status=503,retry-after=9", true))).toMatchObject({
    status: 503,
    code: "service_unavailable",
    headers: { "Retry-After": "9" },
  });
  expect(injectedStatusError(parseFaultHeader("status=500", true))).toMatchObject({
    status: 500,
    code: "internal_error",
    headers: {},
  });
});
