import { expect, test } from "vitest";
import { EMPTY_WORLD, type World } from "../model/world.ts";
import { learnedFrom, UNKNOWN_CHOICES } from "./service-choices.ts";

const world = (counting: World["counting"]): World => ({ ...EMPTY_WORLD, counting });
const TWO_PER_EXCHANGE = { base: 0, perExchange: 2 };
const TWO_BEFORE_ONE_PER = { base: 2, perExchange: 1 };
const ONE_BEFORE_ONE_PER = { base: 1, perExchange: 1 };

test("a later conversation narrows the counting the first left open", () => {
  // A total of 4 for 2 exchanges: two per exchange, or two before the first and one per exchange.
  const first = learnedFrom(UNKNOWN_CHOICES, [world([TWO_PER_EXCHANGE, TWO_BEFORE_ONE_PER])]);
  expect(first.counting).toEqual([TWO_PER_EXCHANGE, TWO_BEFORE_ONE_PER]);
  // A total of 2 for 1 exchange: two per exchange, or one before and one per exchange.
  const second = learnedFrom(first, [world([TWO_PER_EXCHANGE, ONE_BEFORE_ONE_PER])]);
  expect(second.counting).toEqual([TWO_PER_EXCHANGE]);
});

test("a counting the worlds do not agree on, or one that contradicts what was learned, teaches nothing", () => {
  const known = learnedFrom(UNKNOWN_CHOICES, [world([TWO_PER_EXCHANGE])]);
  expect(learnedFrom(known, [world([TWO_BEFORE_ONE_PER]), world([TWO_PER_EXCHANGE])]).counting).toEqual([
    TWO_PER_EXCHANGE,
  ]);
  expect(learnedFrom(known, [world([ONE_BEFORE_ONE_PER])]).counting).toEqual([TWO_PER_EXCHANGE]);
  expect(learnedFrom(known, [world("any")]).counting).toEqual([TWO_PER_EXCHANGE]);
});
