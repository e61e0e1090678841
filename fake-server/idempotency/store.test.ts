import { expect, test } from "vitest";
import { ManualClock } from "../test-support/manual-clock.ts";
import { IdempotencyStore, type StoredOutcome } from "./store.ts";

const answered: StoredOutcome = { kind: "answered", status: 200, body: "{}" };
const key = "key-1";
const scopeOf = (store: IdempotencyStore) => store.scope("sk", "agent");

test("absent, then in flight, then replayed; another fingerprint is a conflict throughout", () => {
  const store = new IdempotencyStore(new ManualClock(), 1000);
  expect(scopeOf(store).lookup(key, "f1")).toEqual({ kind: "absent" });
  const reservation = scopeOf(store).reserve(key, "f1");
  expect(scopeOf(store).lookup(key, "f1")).toEqual({ kind: "in_flight" });
  expect(scopeOf(store).lookup(key, "f2")).toEqual({ kind: "conflict" });
  store.complete(reservation, answered);
  expect(scopeOf(store).lookup(key, "f1")).toEqual({ kind: "replay", outcome: answered });
  expect(scopeOf(store).lookup(key, "f2")).toEqual({ kind: "conflict" });
});

test("scopes separate API keys and agents, whatever characters they hold", () => {
  const store = new IdempotencyStore(new ManualClock(), 1000);
  store.complete(store.scope("a", "b,c").reserve("d", "f1"), answered);
  store.complete(store.scope("sk", "agent-a").reserve("k", "f1"), answered);
  expect(store.scope("a,b", "c").lookup("d", "f1")).toEqual({ kind: "absent" });
  expect(store.scope("sk", "agent-b").lookup("k", "f1")).toEqual({ kind: "absent" });
  expect(store.scope("a", "b,c").lookup("d", "f1").kind).toBe("replay");
  expect(store.size).toBe(2);
});

test("a released reservation frees the key; releasing a completed one keeps it", () => {
  const store = new IdempotencyStore(new ManualClock(), 1000);
  store.release(scopeOf(store).reserve(key, "f1"));
  expect(scopeOf(store).lookup(key, "f1")).toEqual({ kind: "absent" });
  const reservation = scopeOf(store).reserve(key, "f1");
  store.complete(reservation, answered);
  store.release(reservation);
  expect(scopeOf(store).lookup(key, "f1").kind).toBe("replay");
});

test("records expire after the TTL, lazily on lookup and by the sweep", () => {
  const clock = new ManualClock();
  const store = new IdempotencyStore(clock, 1000);
  store.complete(scopeOf(store).reserve(key, "f1"), answered);
  const other = "key-2";
  store.complete(scopeOf(store).reserve(other, "f1"), answered);
  clock.advance(999);
  expect(scopeOf(store).lookup(key, "f1").kind).toBe("replay");
  expect(store.sweep()).toBe(0);
  clock.advance(1);
  expect(scopeOf(store).lookup(key, "f2")).toEqual({ kind: "absent" });
  expect(store.size).toBe(1);
  expect(store.sweep()).toBe(1);
  expect(store.size).toBe(0);
});

test("an operation in flight never expires, and a reset is not undone by its completion", () => {
  const clock = new ManualClock();
  const store = new IdempotencyStore(clock, 10);
  const reservation = scopeOf(store).reserve(key, "f1");
  clock.advance(1_000_000);
  expect(scopeOf(store).lookup(key, "f1")).toEqual({ kind: "in_flight" });
  store.clear();
  store.complete(reservation, answered);
  expect(scopeOf(store).lookup(key, "f1")).toEqual({ kind: "absent" });
});
