import { expect, test } from "vitest";
import { ErrorBody } from "../../schemas/index.ts";
import { RequestLogPage } from "../request-log/schemas.ts";
import { createResponse, deleteConversation, listMessages, streamResponse } from "../test-support/client.ts";
import { expectError, expectResult } from "../test-support/expect.ts";
import { fakeServer } from "../test-support/server.ts";
import { control } from "../test-support/control-client.ts";

/** A stream that may be cut: its events so far and whether the body ended in an error. */
async function streamMayBeCut(url: string, options: Parameters<typeof streamResponse>[1] = {}) {
  try {
    const reply = await streamResponse(url, options);
    return { cut: false, types: reply.events.map((event) => event.event) };
  } catch {
    return { cut: true, types: [] };
  }
}

test("a rule cuts the next stream of a request without X-Fake-Fault, once, and counts down", async () => {
  const fake = await fakeServer();
  const added = await control(fake.url, "POST", "/__fake/faults", {
    match: { operation: "stream" },
    fault: "drop-after=1",
  });
  expect(added.status).toBe(201);
  expect(added.json).toEqual({
    id: expect.stringMatching(/^fault-\d+$/),
    match: { operation: "stream" },
    fault: "drop-after=1",
    times: 1,
    remaining: 1,
    applied: 0,
  });
  expect((await streamMayBeCut(fake.url)).cut).toBe(true);
  expect((await streamMayBeCut(fake.url)).types.at(-1)).toBe("response.completed");
  const { faults } = (await control(fake.url, "GET", "/__fake/faults")).json as {
    faults: { remaining: number; applied: number }[];
  };
  expect(faults.map((rule) => [rule.remaining, rule.applied])).toEqual([[0, 1]]);
});

test("times 0 applies until removed; DELETE of one rule and of all are 204, an unknown id 404", async () => {
  const fake = await fakeServer();
  const { id } = (
    await control(fake.url, "POST", "/__fake/faults", { match: { operation: "create" }, fault: "status=503", times: 0 })
  ).json as { id: string };
  for (let i = 0; i < 3; i++) expectError(await createResponse(fake.url), 503, "service_unavailable");
  expect(((await control(fake.url, "GET", "/__fake/faults")).json as { faults: unknown[] }).faults[0]).toMatchObject({
    remaining: null,
    applied: 3,
  });
  expect((await control(fake.url, "DELETE", `/__fake/faults/${id}`)).status).toBe(204);
  expect((await createResponse(fake.url)).status).toBe(200);
  expectError(await control(fake.url, "DELETE", `/__fake/faults/${id}`), 404, "not_found");
  await control(fake.url, "POST", "/__fake/faults", { fault: "status=500" });
  expect((await control(fake.url, "DELETE", "/__fake/faults")).status).toBe(204);
  expect((await control(fake.url, "GET", "/__fake/faults")).json).toEqual({ faults: [] });
});

test("rules match by agent, operation and message; the oldest matching one applies", async () => {
  const fake = await fakeServer();
  await control(fake.url, "POST", "/__fake/faults", { match: { agent: "agent-b" }, fault: "status=500", times: 0 });
  await control(fake.url, "POST", "/__fake/faults", {
    match: { message_contains: "invoice" },
    fault: "status=429,retry-after=7",
    times: 0,
  });
  await control(fake.url, "POST", "/__fake/faults", {
    match: { message_contains: "invoice" },
    fault: "status=503",
    times: 0,
  });
  expect((await createResponse(fake.url, { body: { message: "hello" } })).status).toBe(200);
  expectError(await createResponse(fake.url, { agent: "agent-b" }), 500, "internal_error");
  const limited = await createResponse(fake.url, { body: { message: "where is my invoice?" } });
  expectError(limited, 429, "rate_limited");
  expect(limited.headers["retry-after"]).toBe("7");
});

test("list and delete take rules too; a message rule never matches them", async () => {
  const fake = await fakeServer();
  const { conversation_id } = expectResult(await createResponse(fake.url));
  await control(fake.url, "POST", "/__fake/faults", {
    match: { message_contains: "a" },
    fault: "status=500",
    times: 0,
  });
  await control(fake.url, "POST", "/__fake/faults", {
    match: { operation: "list" },
    fault: "status=429,retry-after=2",
  });
  await control(fake.url, "POST", "/__fake/faults", { match: { operation: "delete" }, fault: "status=503" });
  const listed = await listMessages(fake.url, conversation_id);
  expectError(listed, 429, "rate_limited");
  expect(listed.headers["retry-after"]).toBe("2");
  expectError(await deleteConversation(fake.url, conversation_id), 503, "service_unavailable");
  expect((await listMessages(fake.url, conversation_id)).status).toBe(200);
  expect((await deleteConversation(fake.url, conversation_id)).status).toBe(204);
});

test("a request's own X-Fake-Fault wins over the rules and uses none; the journal names the rule that applied", async () => {
  const fake = await fakeServer();
  const { id } = (await control(fake.url, "POST", "/__fake/faults", { fault: "status=503" })).json as { id: string };
  expectError(await createResponse(fake.url, { headers: { "x-fake-fault": "status=500" } }), 500, "internal_error");
  expectError(await createResponse(fake.url), 503, "service_unavailable");
  expect((await createResponse(fake.url)).status).toBe(200);
  const { requests } = RequestLogPage.parse((await control(fake.url, "GET", "/__fake/requests")).json);
  expect(requests.map((entry) => entry.fault_rule)).toEqual([null, id, null]);
});

test("the fault option applies to requests with neither header nor rule", async () => {
  const fake = await fakeServer({ fault: "status=503,retry-after=3" });
  const refused = await createResponse(fake.url);
  expectError(refused, 503, "service_unavailable");
  expect(refused.headers["retry-after"]).toBe("3");
  await control(fake.url, "POST", "/__fake/faults", { fault: "status=429" });
  expectError(await createResponse(fake.url), 429, "rate_limited");
  expect((await createResponse(fake.url, { headers: { "x-fake-fault": "first-event-delay=0" } })).status).toBe(200);
});

test("with fault injection off, rules are refused and the fault option cannot start", async () => {
  const fake = await fakeServer({ faults: false });
  expectError(await control(fake.url, "POST", "/__fake/faults", { fault: "status=503" }), 400, "invalid_request");
  expect((await control(fake.url, "GET", "/__fake/faults")).json).toEqual({ faults: [] });
  await expect(fakeServer({ faults: false, fault: "status=503" })).rejects.toThrow(/fault/);
});

test.each([
  ["malformed JSON", '{"fault": '],
  ["a body that is not an object", [1, 2]],
  ["an unknown field", { fault: "status=503", colour: "red" }],
  ["an unknown match field", { match: { path: "/v1" }, fault: "status=503" }],
  ["a bad fault string", { fault: "status=418" }],
  ["an unknown fault item", { fault: "explode=1" }],
  ["no fault", { match: {} }],
  ["times below 0", { fault: "status=503", times: -1 }],
  ["times not whole", { fault: "status=503", times: 1.5 }],
  ["times as text", { fault: "status=503", times: "2" }],
  ["an unknown operation", { match: { operation: "lis" }, fault: "status=503" }],
])("%s is a 400 with the fake's error body, and no rule is added", async (_, body) => {
  const fake = await fakeServer();
  const reply = await control(fake.url, "POST", "/__fake/faults", body);
  expect(reply.status).toBe(400);
  expect(ErrorBody.parse(reply.json).error.code).toMatch(/^invalid_(json|request)$/);
  expect((await control(fake.url, "GET", "/__fake/faults")).json).toEqual({ faults: [] });
});

test("the error names the field", async () => {
  const fake = await fakeServer();
  const named = async (body: unknown) =>
    expectError(await control(fake.url, "POST", "/__fake/faults", body), 400, "invalid_request").error.message;
  expect(await named({ fault: "status=503", colour: "red" })).toContain("colour");
  expect(await named({ match: { operation: "lis" }, fault: "status=503" })).toContain("match.operation");
  expect(await named({ fault: "status=503", times: -1 })).toContain("times");
  expect(await named({ fault: "status=418" })).toContain("fault");
});
