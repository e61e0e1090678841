import fc from "fast-check";
import { expect, test } from "vitest";
import { canonicalJson } from "../../schemas/canonical-json.ts";
import { payloadFingerprint, SHORT_PAYLOAD_CHARS } from "./fingerprint.ts";

test("a long payload's fingerprint is a fixed-size digest; a short one is its canonical JSON", () => {
  const big = { message: "x".repeat(30_000) };
  expect(payloadFingerprint(big)).toMatch(/^[A-Za-z0-9+/]{43}=$/);
  expect(payloadFingerprint({ message: "hi" })).toBe('{"message":"hi"}');
  expect(payloadFingerprint(JSON.parse('{"b":1,"a":2}'))).toBe(payloadFingerprint({ a: 2, b: 1 }));
  expect(payloadFingerprint({ a: 1 })).not.toBe(payloadFingerprint({ a: 2 }));
});

test("payloads around the length where digests take over keep apart exactly when their canonical JSON differs", () => {
  // Messages sized so that the canonical text is just under, at or just over the limit.
  const frame = canonicalJson({ message: "" }).length;
  const sized = fc
    .integer({ min: SHORT_PAYLOAD_CHARS - 16, max: SHORT_PAYLOAD_CHARS + 2 })
    .chain((length) =>
      fc
        .string({ minLength: 0, maxLength: 3 })
        .map((tail) => ({ message: "m".repeat(Math.max(0, length - frame)) + tail })),
    );
  fc.assert(
    fc.property(sized, sized, (a, b) => {
      const same = canonicalJson(a) === canonicalJson(b);
      expect(payloadFingerprint(a) === payloadFingerprint(b)).toBe(same);
    }),
    { numRuns: 300 },
  );
});
