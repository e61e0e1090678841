/**
 * The payload arbitraries (suite/checks/support/arbitraries.ts) must stay inside what the spec
 * promises to accept; otherwise a check would blame the target for the generator's mistake.
 */
import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { asValidInteger, metadata, requestBody, unicodeText } from "./arbitraries.ts";

const RUNS = { numRuns: 300 };

describe("payload arbitraries", () => {
  test("texts are free of NUL and control characters other than tab and newline", () => {
    fc.assert(
      fc.property(unicodeText(), (text) => {
        expect(text).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f]/);
      }),
      RUNS,
    );
  });

  test("metadata is a small flat object of strings whose every key survives JSON, __proto__ included", () => {
    fc.assert(
      fc.property(metadata(), (value) => {
        const keys = Object.keys(value);
        expect(keys.length).toBeLessThanOrEqual(4);
        expect(Object.values(value).every((v) => typeof v === "string")).toBe(true);
        expect(Object.keys(JSON.parse(JSON.stringify(value)))).toEqual(keys);
        expect(Object.getPrototypeOf(value)).toBe(Object.prototype);
      }),
      RUNS,
    );
    // The hostile keys do come up.
    const seen = new Set(fc.sample(metadata(), { numRuns: 500, seed: 1 }).flatMap((m) => Object.keys(m)));
    expect(seen.has("__proto__")).toBe(true);
    expect(seen.has("constructor")).toBe(true);
  });

  test("a request body leaves out undefined fields and keeps null ones", () => {
    const body = requestBody("hi", {
      text: "",
      metadata: undefined,
      externalReference: null,
      continueConversation: false,
    });
    expect(JSON.stringify(body)).toBe('{"message":"hi","external_reference":null}');
  });
});

describe("listing parameters", () => {
  test("only integers within the bounds count as valid", () => {
    expect(asValidInteger(1, 1, 100)).toBe(1);
    expect(asValidInteger(100, 1, 100)).toBe(100);
    expect(asValidInteger(101, 1, 100)).toBeUndefined();
    expect(asValidInteger(0, 1, 100)).toBeUndefined();
    expect(asValidInteger(1.5, 1, 100)).toBeUndefined();
    expect(asValidInteger("1", 1, 100)).toBeUndefined();
    expect(asValidInteger(undefined, 1, 100)).toBeUndefined();
  });
});
