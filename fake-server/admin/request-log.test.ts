import { expect, test } from "vitest";
import { LoggedRequest, RequestLog } from "./request-log.ts";

const entry = (status: number): LoggedRequest => {
  const logged = new LoggedRequest(Date.parse("2026-01-02T03:04:05.678Z"), 100, "GET", "/v1/x", undefined);
  logged.closed(status, 101, undefined);
  return logged;
};

test("an entry is formatted when read: RFC 3339 time, duration in microsecond steps, redacted key, warnings", () => {
  const log = new RequestLog(2);
  const logged = new LoggedRequest(Date.parse("2026-01-02T03:04:05.678Z"), 10, "POST", "/v1/agents/a/responses", "Bearer sk-fake-a");
  logged.closed(200, 11.23456, ["CLIENT-2: no key"]);
  log.add(logged);
  log.add(entry(404));
  expect(log.recent()).toEqual([
    {
      at: "2026-01-02T03:04:05.678Z",
      method: "POST",
      path: "/v1/agents/a/responses",
      status: 200,
      duration_ms: 1.235,
      api_key: "sk-fak…",
      warnings: ["CLIENT-2: no key"],
    },
    { at: "2026-01-02T03:04:05.678Z", method: "GET", path: "/v1/x", status: 404, duration_ms: 1, api_key: null, warnings: [] },
  ]);
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
