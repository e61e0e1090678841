import { expect, test } from "vitest";
import { RequestLog } from "./request-log.ts";
import type { RequestLogEntry } from "./schemas.ts";

const entry = (status: number): RequestLogEntry => ({
  at: "2026-01-02T03:04:05.678Z",
  method: "GET",
  path: "/v1/x",
  status,
  duration_ms: 1,
  api_key: null,
  warnings: [],
});

test("keeps the last `capacity` entries, oldest first", () => {
  const log = new RequestLog(3);
  for (const status of [1, 2, 3, 4, 5]) log.add(entry(status));
  expect(log.recent().map((e) => e.status)).toEqual([3, 4, 5]);
  expect(log.recent(2).map((e) => e.status)).toEqual([4, 5]);
  log.clear();
  expect(log.recent()).toEqual([]);
});

test("a log of size 0 keeps nothing", () => {
  const log = new RequestLog(0);
  log.add(entry(1));
  expect(log.recent()).toEqual([]);
});
