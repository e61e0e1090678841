import { expect, test } from "vitest";
import { InOrder } from "./in-order.ts";

test("exchanges that end out of order are delivered in the order they started; those carrying nothing only free their place", () => {
  const delivered: string[] = [];
  const inOrder = new InOrder<string>((item) => delivered.push(item));
  inOrder.arrived(2, "c");
  inOrder.arrived(1, undefined);
  expect(delivered).toEqual([]);
  inOrder.arrived(0, "a");
  expect(delivered).toEqual(["a", "c"]);
  inOrder.arrived(3, "d");
  expect(delivered).toEqual(["a", "c", "d"]);
});

test("one request that never ends holds back at most maxWaiting others; should it end later, it is dropped", () => {
  const delivered: number[] = [];
  const inOrder = new InOrder<number>((item) => delivered.push(item), 3);
  for (const sequence of [1, 2, 3]) inOrder.arrived(sequence, sequence);
  expect(delivered).toEqual([]);
  inOrder.arrived(4, 4);
  expect(delivered).toEqual([1, 2, 3, 4]);
  inOrder.arrived(0, 0);
  expect(delivered).toEqual([1, 2, 3, 4]);
});

test("drain delivers what still waits, in sequence order, and nothing after", () => {
  const delivered: number[] = [];
  const inOrder = new InOrder<number>((item) => delivered.push(item));
  inOrder.arrived(5, 5);
  inOrder.arrived(3, 3);
  inOrder.drain();
  expect(delivered).toEqual([3, 5]);
  inOrder.arrived(9, 9);
  expect(delivered).toEqual([3, 5]);
});
