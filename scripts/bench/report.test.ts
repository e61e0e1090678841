import { expect, test } from "vitest";
import { atLeast, atMost, meets, type Section } from "./figures.ts";
import { median, percentile, round } from "./stats.ts";
import { renderTable } from "./table.ts";

test("nearest-rank percentiles of an unsorted sample", () => {
  const sample = [5, 1, 4, 2, 3, 10, 9, 8, 7, 6];
  expect(median(sample)).toBe(5);
  expect(percentile(sample, 90)).toBe(9);
  expect(percentile(sample, 99)).toBe(10);
  expect(percentile(sample, 0)).toBe(1);
  expect(percentile([], 50)).toBeNaN();
  expect(round(1.23456, 2)).toBe(1.23);
});

test("a figure meets its target on the right side of it, and has no verdict without one", () => {
  expect(meets({ metric: "r", value: 0.7, unit: "ratio", target: atLeast(0.7) })).toBe(true);
  expect(meets({ metric: "r", value: 0.69, unit: "ratio", target: atLeast(0.7) })).toBe(false);
  expect(meets({ metric: "b", value: 1025, unit: "bytes", target: atMost(1024) })).toBe(false);
  expect(meets({ metric: "t", value: 3, unit: "ms" })).toBeUndefined();
});

test("the table shows each figure with its unit, target and verdict", () => {
  const section: Section = {
    name: "memory",
    title: "Heap",
    figures: [
      { metric: "heap per stored message", value: 1200, unit: "bytes", target: atMost(1024) },
      { metric: "after / before", value: 1.01, unit: "ratio", target: atMost(1.1) },
      { metric: "heap before storing", value: 15.2, unit: "MiB" },
    ],
    details: {},
  };
  const lines = renderTable([section]).split("\n");
  expect(lines[0]).toMatch(/^section\s+metric\s+value\s+target\s+verdict$/);
  expect(lines[2]).toMatch(/^memory\s+heap per stored message\s+1,200 bytes\s+<= 1024\s+MISSED$/);
  expect(lines[3]).toMatch(/^memory\s+after \/ before\s+1\.01\s+<= 1\.1\s+met$/);
  expect(lines[4]).toMatch(/^memory\s+heap before storing\s+15\.2 MiB$/);
});
