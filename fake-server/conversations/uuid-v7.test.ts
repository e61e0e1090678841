import { expect, test } from "vitest";
import { Uuid } from "../../schemas/index.ts";
import { ManualClock } from "../test-support/manual-clock.ts";
import { uuidV7Generator } from "./uuid-v7.ts";

const V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

/** The Unix milliseconds in the first 48 bits of a UUIDv7. */
const millisecondsOf = (id: string) => Number.parseInt(id.replaceAll("-", "").slice(0, 12), 16);

test("ids are UUIDv7: version 7, the RFC variant, the clock's milliseconds in the first 48 bits", () => {
  const clock = new ManualClock(Date.UTC(2026, 10, 23, 20, 41, 46, 123));
  const next = uuidV7Generator(clock);
  const id = next();
  expect(Uuid.safeParse(id).success).toBe(true);
  expect(id).toMatch(V7);
  expect(millisecondsOf(id)).toBe(clock.now());
  clock.advance(2 ** 33); // past 32 bits of milliseconds: the high part is written too
  expect(millisecondsOf(next())).toBe(clock.now());
});

test("ids sort in the order they were minted: within a millisecond, across a spent counter, and when the clock steps back", () => {
  const clock = new ManualClock();
  const next = uuidV7Generator(clock);
  // 5,000 ids in one millisecond spend the 12-bit counter more than once.
  const ids = Array.from({ length: 5_000 }, next);
  clock.advance(-10);
  ids.push(next(), next());
  clock.advance(1_000);
  ids.push(next());
  for (const id of ids) expect(id).toMatch(V7);
  expect([...ids].sort()).toEqual(ids);
  expect(new Set(ids).size).toBe(ids.length);
  expect(millisecondsOf(ids.at(-1) ?? "")).toBe(clock.now());
});

test("the random bits vary", () => {
  const next = uuidV7Generator(new ManualClock());
  const ids = Array.from({ length: 500 }, next);
  for (const position of [20, 30, 35]) expect(new Set(ids.map((id) => id[position])).size).toBe(16);
});
