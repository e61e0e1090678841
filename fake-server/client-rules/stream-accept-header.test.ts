import { expect, test } from "vitest";
import { RequestLogPage } from "../request-log/schemas.ts";
import { call, streamResponse } from "../test-support/client.ts";
import { completedOf, parseStream } from "../test-support/events.ts";
import { fakeServer } from "../test-support/server.ts";
import { onlyViolation } from "../test-support/client-rules.ts";
import { ManualClock } from "../test-support/manual-clock.ts";
import { ClientRuleObserver } from "./observer.ts";
import type { AnsweringParty } from "./rule.ts";
import { acceptsEventStream } from "./rules/stream-accept-header.ts";

test.for([
  ["any type", "*/*"],
  ["any text", "text/*"],
  ["JSON only", "application/json"],
  ["event streams refused with q=0", "text/event-stream;q=0"],
] as const)("CLIENT-5: a stream request accepting %s is recorded and still served", async ([, accept]) => {
  const fake = await fakeServer();
  completedOf(parseStream((await streamResponse(fake.url, { headers: { accept } })).events));
  const violation = onlyViolation(fake, "CLIENT-5");
  expect(violation.requests).toEqual([
    expect.objectContaining({ path: "/v1/agents/agent-a/responses/stream", status: 200 }),
  ]);
});

test("CLIENT-5: the request log shows the same finding as a warning of that request", async () => {
  const fake = await fakeServer();
  await streamResponse(fake.url, { headers: { accept: "*/*" } });
  const log = RequestLogPage.parse((await call(fake.url, "GET", "/__fake/requests", {})).json);
  expect(log.requests.at(-1)?.warnings).toEqual([`CLIENT-5: ${onlyViolation(fake, "CLIENT-5").message}`]);
});

test.for([
  ["text/event-stream"],
  ["TEXT/EVENT-STREAM"],
  ["application/json, text/event-stream;q=0.5"],
  ["text/event-stream; charset=utf-8"],
] as const)("CLIENT-5: Accept %s is not recorded", async ([accept]) => {
  const fake = await fakeServer();
  await streamResponse(fake.url, { headers: { accept } });
  expect(fake.clientViolations()).toEqual([]);
});

test("CLIENT-5: an Accept header without text/event-stream is told apart from one with it", () => {
  expect(acceptsEventStream("text/event-stream;q=0.0")).toBe(false);
  expect(acceptsEventStream("text/html, text/event-stream ; q=1")).toBe(true);
  expect(acceptsEventStream("text/event-streams")).toBe(false);
});

test("CLIENT-5: observed in front of the real service (the traffic judge), the finding says nothing of the fake", () => {
  const messageFor = (party: AnsweringParty) => {
    const observer = new ClientRuleObserver(new ManualClock(), new Set(), {}, party);
    observer.arrived({ method: "POST", path: "/v1/agents/agent-a/responses/stream", headers: { accept: "*/*" } });
    return observer.violations({ requirement: "CLIENT-5" }).map((v) => v.message);
  };
  expect(messageFor("fake")).toEqual([
    "stream request without Accept: text/event-stream (the spec requires clients to send it; the fake serves the stream anyway)",
  ]);
  expect(messageFor("service")).toEqual([
    "stream request without Accept: text/event-stream (the spec requires clients to send it)",
  ]);
});
