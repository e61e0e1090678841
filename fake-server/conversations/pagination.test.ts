import { expect, test } from "vitest";
import { DEFAULT_BEHAVIOR } from "../behavior/behavior.ts";
import { parsePagination, slicePage } from "./pagination.ts";

const parse = (query: Record<string, unknown>) => parsePagination(query, DEFAULT_BEHAVIOR);

test("no parameters means page 1 of 50", () => {
  expect(parse({})).toEqual({ page: 1, pageSize: 50 });
});

test("decimal integers in range are used", () => {
  expect(parse({ page: "3", page_size: "100" })).toEqual({ page: 3, pageSize: 100 });
  expect(parse({ page: "007", page_size: "1" })).toEqual({ page: 7, pageSize: 1 });
});

test.each([
  [{ page: "0" }],
  [{ page: "-1" }],
  [{ page: "1.5" }],
  [{ page: "abc" }],
  [{ page: "" }],
  [{ page: "1e2" }],
  [{ page: " 1" }],
  [{ page: "+1" }],
  [{ page: "99999999999999999999" }],
  [{ page_size: "0" }],
  [{ page_size: "101" }],
  [{ page_size: "-1" }],
  [{ page_size: "1.5" }],
  [{ page_size: "abc" }],
  [{ page_size: "" }],
  [{ page: ["1", "2"] }],
  [{ page_size: ["10", "10"] }],
])("%j is invalid_pagination", (query) => {
  expect(() => parse(query)).toThrow(expect.objectContaining({ status: 400, code: "invalid_pagination" }));
});

test("a page is one slice; past the end it is empty and has no more", () => {
  const all = [1, 2, 3, 4, 5];
  expect(slicePage(all, { page: 1, pageSize: 2 })).toEqual({ items: [1, 2], total: 5, hasMore: true });
  expect(slicePage(all, { page: 3, pageSize: 2 })).toEqual({ items: [5], total: 5, hasMore: false });
  expect(slicePage(all, { page: 4, pageSize: 2 })).toEqual({ items: [], total: 5, hasMore: false });
  expect(slicePage(all, { page: 1, pageSize: 5 })).toEqual({ items: all, total: 5, hasMore: false });
});
