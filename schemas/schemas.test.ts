import { describe, expect, test } from "vitest";
import { ErrorBody, FakeResponseRequest, MessagePage, SpecMessagePage, SpecStreamEvent, StreamEvent } from "./index.ts";

const conversation = {
  id: "0b7e2c3a-2f4e-4c1e-9d8a-5b6c7d8e9f01",
  created_at: "2026-01-02T03:04:05.678Z",
  updated_at: "2026-01-02T03:04:05.678Z",
};

describe("spec schemas accept every legal gap choice; fake schemas pin the fake's", () => {
  test("epoch timestamps and extra fields pass the spec page schema but not the fake one", () => {
    const page = {
      conversation: { ...conversation, created_at: 1767323045, updated_at: 1767323045, title: "extra" },
      items: [{ anything: true }],
      page: 1,
      page_size: 50,
      total: 1,
      has_more: false,
      next_page: null,
    };
    expect(SpecMessagePage.safeParse(page).success).toBe(true);
    expect(MessagePage.safeParse(page).success).toBe(false);
  });

  test("a created event with any payload passes the spec union; the fake's must name the conversation", () => {
    expect(SpecStreamEvent.safeParse({ type: "response.created" }).success).toBe(true);
    expect(StreamEvent.safeParse({ type: "response.created" }).success).toBe(false);
    expect(StreamEvent.safeParse({ type: "response.created", conversation_id: conversation.id }).success).toBe(true);
  });

  test("an event whose type is not one of the four is rejected by both strengths", () => {
    expect(SpecStreamEvent.safeParse({ type: "response.updated" }).success).toBe(false);
    expect(StreamEvent.safeParse({ type: "response.updated" }).success).toBe(false);
  });

  test("the fake's error body is exactly {error: {code, message}} with a known code", () => {
    expect(ErrorBody.safeParse({ error: { code: "invalid_json", message: "bad" } }).success).toBe(true);
    expect(ErrorBody.safeParse({ error: { code: "made_up", message: "bad" } }).success).toBe(false);
    expect(ErrorBody.safeParse({ code: "invalid_json", message: "bad" }).success).toBe(false);
  });
});

describe("the fake's request rules", () => {
  test("metadata must be a flat object of short strings with at most 16 keys", () => {
    const ok = (metadata: unknown) => FakeResponseRequest.safeParse({ message: "hi", metadata }).success;
    expect(ok({ order: "42" })).toBe(true);
    expect(ok(Object.fromEntries(Array.from({ length: 16 }, (_, i) => [`k${i}`, "v"])))).toBe(true);
    expect(ok(Object.fromEntries(Array.from({ length: 17 }, (_, i) => [`k${i}`, "v"])))).toBe(false);
    expect(ok({ nested: { a: "b" } })).toBe(false);
    expect(ok({ n: 1 })).toBe(false);
    expect(ok(["a"])).toBe(false);
    expect(ok("text")).toBe(false);
    expect(ok({ ["k".repeat(65)]: "v" })).toBe(false);
    expect(ok({ k: "v".repeat(513) })).toBe(false);
  });

  test("a __proto__ metadata key is plain data, not a prototype change", () => {
    const parsed = FakeResponseRequest.parse(
      JSON.parse('{"message":"hi","metadata":{"__proto__":"x","constructor":"y"}}'),
    );
    expect(Object.keys(parsed.metadata ?? {})).toEqual(["__proto__", "constructor"]);
    expect(JSON.stringify(parsed.metadata)).toBe('{"__proto__":"x","constructor":"y"}');
    expect(({} as Record<string, unknown>).constructor).toBe(Object);
  });
});
