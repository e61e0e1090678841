import { expect, test } from "vitest";
import { LoggedRequest, RequestLog } from "./request-log.ts";

const entry = (status: number): LoggedRequest => {
  const logged = new LoggedRequest(Date.parse("2026-01-02T03:04:05.678Z"), 100, "GET", "/v1/x", {});
  logged.closed(status, 101, {}, undefined);
  return logged;
};

test("an entry is formatted when read: RFC 3339 time, duration in microsecond steps, redacted key, headers and body, warnings, rules", () => {
  const log = new RequestLog(2);
  const headers = { authorization: "Bearer sk-fake-a", "content-type": "application/json", "x-many": ["1", "2"] };
  const logged = new LoggedRequest(
    Date.parse("2026-01-02T03:04:05.678Z"),
    10,
    "POST",
    "/v1/agents/a/responses",
    headers,
    "team-1",
  );
  logged.closed(200, 11.23456, { bodyText: '{"message":"hi"}', faultRule: "fault-3", answerRule: "answer-1" }, [
    "CLIENT-2: no key",
  ]);
  log.add(logged);
  log.add(entry(404));
  expect(log.recent()).toEqual([
    {
      at: "2026-01-02T03:04:05.678Z",
      session: "team-1",
      method: "POST",
      path: "/v1/agents/a/responses",
      status: 200,
      duration_ms: 1.235,
      api_key: "sk-fak…",
      headers: { authorization: "Bearer sk-fak…", "content-type": "application/json", "x-many": "1, 2" },
      body: { message: "hi" },
      warnings: ["CLIENT-2: no key"],
      fault_rule: "fault-3",
      answer_rule: "answer-1",
    },
    {
      at: "2026-01-02T03:04:05.678Z",
      session: "default",
      method: "GET",
      path: "/v1/x",
      status: 404,
      duration_ms: 1,
      api_key: null,
      headers: {},
      body: null,
      warnings: [],
      fault_rule: null,
      answer_rule: null,
    },
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

test("a body that is not JSON is shown as text, and one cut at 8 KiB as the text kept", () => {
  const log = new RequestLog(2);
  const broken = new LoggedRequest(0, 0, "POST", "/v1/x", {});
  broken.closed(400, 1, { bodyText: "{not json" }, undefined);
  const long = new LoggedRequest(0, 0, "POST", "/v1/x", {});
  const cut = `{"message":"${"a".repeat(9000)}`.slice(0, 8192);
  long.closed(200, 1, { bodyText: cut }, undefined);
  log.add(broken);
  log.add(long);
  expect(log.recent().map((e) => e.body)).toEqual(["{not json", cut]);
});
