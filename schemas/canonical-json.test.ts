import fc from "fast-check";
import { expect, test } from "vitest";
import { canonicalJson } from "./canonical-json.ts";

test("key order and whitespace do not change the text", () => {
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
      const reordered = JSON.parse(
        JSON.stringify(value, (_key, v: unknown) =>
          v && typeof v === "object" && !Array.isArray(v) ? Object.fromEntries(Object.entries(v).reverse()) : v,
        ),
      );
      expect(canonicalJson(reordered)).toBe(canonical);
    }),
    { numRuns: 100 },
  );
});

test("a flat object (the usual body) is written as the general walk writes it", () => {
  const primitive = fc.oneof(
    fc.string(),
    fc.double({ noNaN: true, noDefaultInfinity: true }),
    fc.boolean(),
    fc.constant(null),
  );
  fc.assert(
    fc.property(
      fc.dictionary(fc.oneof(fc.string(), fc.constantFrom("__proto__", "constructor")), primitive),
      (flat) => {
        const body = JSON.parse(JSON.stringify(flat)) as unknown;
        // Inside an array the object goes through the general walk; on its own, through the flat writer.
        expect(canonicalJson([body])).toBe(`[${canonicalJson(body)}]`);
      },
    ),
    { numRuns: 300 },
  );
});

test("a field JSON cannot hold is left out of an object and null in an array, as JSON.stringify writes them", () => {
  const built = { message: "hi", metadata: undefined, list: [1, undefined], nested: { a: undefined, b: 2 } };
  expect(canonicalJson(built)).toBe('{"list":[1,null],"message":"hi","nested":{"b":2}}');
  expect(canonicalJson(built)).toBe(canonicalJson(JSON.parse(JSON.stringify(built))));
  expect(canonicalJson({ message: "hi", metadata: undefined })).toBe(canonicalJson({ message: "hi" }));
});

test("a body nested far deeper than the call stack allows is written, not a stack overflow", () => {
  let deep: unknown = "x";
  for (let i = 0; i < 100_000; i++) deep = [deep];
  const text = canonicalJson({ message: "hi", extra: deep });
  expect(text.startsWith('{"extra":[[[')).toBe(true);
  expect(text.endsWith(']]],"message":"hi"}')).toBe(true);
});
