import fc from "fast-check";
import { expect, test } from "vitest";
import { canonicalJson, payloadFingerprint, SHORT_PAYLOAD_CHARS } from "./fingerprint.ts";

test("key order and whitespace do not change the fingerprint", () => {
  const a = JSON.parse('{"message":"hi","metadata":{"b":"2","a":"1"}}');
  const b = JSON.parse(' { "metadata" : { "a":"1", "b":"2" }, "message" : "hi" } ');
  expect(canonicalJson(a)).toBe(canonicalJson(b));
});

test("different values, or a null where a field was absent, are different payloads", () => {
  expect(canonicalJson({ message: "hi" })).not.toBe(canonicalJson({ message: "hi!" }));
  expect(canonicalJson({ message: "hi" })).not.toBe(canonicalJson({ message: "hi", conversation_id: null }));
});

test("a __proto__ key is an ordinary key", () => {
  const withProto = JSON.parse('{"metadata":{"__proto__":"x"}}');
  expect(canonicalJson(withProto)).toBe('{"metadata":{"__proto__":"x"}}');
  expect(canonicalJson(withProto)).not.toBe(canonicalJson({ metadata: {} }));
});

test("any JSON value survives a round trip and is insensitive to key order", () => {
  fc.assert(
    fc.property(fc.jsonValue(), (value) => {
      const canonical = canonicalJson(value);
      expect(canonicalJson(JSON.parse(canonical))).toBe(canonical);
      const reordered = JSON.parse(JSON.stringify(value, (_key, v: unknown) =>
        v && typeof v === "object" && !Array.isArray(v) ? Object.fromEntries(Object.entries(v).reverse()) : v,
      ));
      expect(canonicalJson(reordered)).toBe(canonical);
    }),
    { numRuns: 100 },
  );
});

test("a long payload's fingerprint is a fixed-size digest; a short one is its canonical JSON", () => {
  const big = { message: "x".repeat(30_000) };
  expect(payloadFingerprint(big)).toMatch(/^[A-Za-z0-9+/]{43}=$/);
  expect(payloadFingerprint({ message: "hi" })).toBe('{"message":"hi"}');
  expect(payloadFingerprint(JSON.parse('{"b":1,"a":2}'))).toBe(payloadFingerprint({ a: 2, b: 1 }));
  expect(payloadFingerprint({ a: 1 })).not.toBe(payloadFingerprint({ a: 2 }));
});

test("a flat object (the usual body) is written as the general walk writes it", () => {
  const primitive = fc.oneof(fc.string(), fc.double({ noNaN: true, noDefaultInfinity: true }), fc.boolean(), fc.constant(null));
  fc.assert(
    fc.property(fc.dictionary(fc.oneof(fc.string(), fc.constantFrom("__proto__", "constructor")), primitive), (flat) => {
      const body = JSON.parse(JSON.stringify(flat)) as unknown;
      // Inside an array the object goes through the general walk; on its own, through the flat writer.
      expect(canonicalJson([body])).toBe(`[${canonicalJson(body)}]`);
    }),
    { numRuns: 300 },
  );
});

test("payloads around the length where digests take over keep apart exactly when their canonical JSON differs", () => {
  // Messages sized so that the canonical text is just under, at or just over the limit.
  const frame = canonicalJson({ message: "" }).length;
  const sized = fc.integer({ min: SHORT_PAYLOAD_CHARS - 16, max: SHORT_PAYLOAD_CHARS + 2 }).chain((length) =>
    fc.string({ minLength: 0, maxLength: 3 }).map((tail) => ({ message: "m".repeat(Math.max(0, length - frame)) + tail })),
  );
  fc.assert(
    fc.property(sized, sized, (a, b) => {
      const same = canonicalJson(a) === canonicalJson(b);
      expect(payloadFingerprint(a) === payloadFingerprint(b)).toBe(same);
    }),
    { numRuns: 300 },
  );
});
