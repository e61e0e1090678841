/**
 * The named expectations (suite/judgements/expect.ts) that every check relies on: each must throw
 * on the wrong answer, say what was expected and what came, and carry the exchange.
 */
import { describe, expect, test } from "vitest";
import { z } from "zod";
import { CONVERSATION_NOT_FOUND } from "../../schemas/index.ts";
import {
  ExpectationError,
  expect2xx,
  expect4xx,
  expectErrorCode,
  expectJson,
  expectNon2xx,
  expectPlainHttpAnswer,
  expectSame,
  expectSomeErrorCode,
  expectStatus,
  expectStreamOk,
  expectValidationRefusal,
  formatTranscript,
  isEventStream,
  sameJson,
} from "./expect.ts";
import type { HttpResult, StreamResult, Transcript } from "../http/types.ts";
import { failureOf } from "../test-support/failure-of.ts";

function transcript(status: number, body: string): Transcript {
  return {
    request: { method: "GET", url: "http://127.0.0.1:1/v1/x", headers: { authorization: "Bearer sk-f…(redacted)" } },
    response: { status, headers: { "content-type": "application/json" }, body },
    durationMs: 3,
  };
}

function http(status: number, json: unknown): HttpResult {
  const text = json === undefined ? "not json" : JSON.stringify(json);
  return { status, headers: { "content-type": "application/json" }, text, json, transcript: transcript(status, text) };
}

function stream(overrides: Partial<StreamResult>): StreamResult {
  return {
    status: 200,
    headers: { "content-type": "text/event-stream; charset=utf-8" },
    events: [],
    terminal: "response.completed",
    ended: true,
    chunks: 1,
    problems: [],
    http: undefined,
    transcript: transcript(200, ""),
    ...overrides,
  };
}

describe("status expectations", () => {
  test("expect2xx passes 200 and 204, and fails 301 naming both statuses and the exchange", () => {
    expect2xx(http(200, {}));
    expect2xx(http(204, undefined));
    const failure = failureOf(() => expect2xx(http(301, {}), "create"));
    expect(failure.message).toContain("create: expected a 2xx status, got 301");
    expect(failure.message).toContain("> GET http://127.0.0.1:1/v1/x");
    expect(failure.message).toContain("Bearer sk-f…(redacted)");
    expect(failure.transcripts).toHaveLength(1);
  });

  test("a failure is data: what was wrong and the transcripts as fields, the message only joins them for display", () => {
    const answer = http(301, {});
    const failure = failureOf(() => expect2xx(answer, "create"));
    expect(failure.what).toBe("create: expected a 2xx status, got 301");
    expect(failure.transcripts).toEqual([answer.transcript]);
    expect(failure.message).toBe(`${failure.what}\n\n${formatTranscript(answer.transcript)}`);
  });

  test("expectNon2xx, expect4xx and expectStatus reject what they should", () => {
    expectNon2xx(http(401, {}));
    expect(() => expectNon2xx(http(201, {}))).toThrow(ExpectationError);
    expect4xx(http(422, {}));
    expect(() => expect4xx(http(500, {}))).toThrow("expected a 4xx status, got 500");
    expectStatus(http(422, {}), [400, 422]);
    expect(() => expectStatus(http(422, {}), 409)).toThrow("expected status 409, got 422");
  });

  test("expectValidationRefusal passes 400 and 422, and fails a 2xx or any other 4xx", () => {
    expectValidationRefusal(http(400, {}));
    expectValidationRefusal(http(422, {}));
    expect(() => expectValidationRefusal(http(200, {}), "listing with page=0")).toThrow(
      "listing with page=0: expected status 400 or 422, got 200",
    );
    for (const status of [404, 409, 415])
      expect(() => expectValidationRefusal(http(status, {}))).toThrow(ExpectationError);
  });
});

describe("body expectations", () => {
  const Shape = z.object({ id: z.string() });

  test("expectJson returns the parsed body and explains a wrong shape with prettifyError", () => {
    expect(expectJson(Shape, http(200, { id: "a" }))).toEqual({ id: "a" });
    const failure = failureOf(() => expectJson(Shape, http(200, { id: 1 }), "listing"));
    expect(failure.message).toContain("listing: the JSON body does not have the expected shape");
    expect(failure.message).toContain(z.prettifyError(Shape.safeParse({ id: 1 }).error!));
    expect(() => expectJson(Shape, http(200, undefined))).toThrow("expected a JSON body");
  });

  test.each([
    [{ error: { code: CONVERSATION_NOT_FOUND, message: "x" } }],
    [{ code: CONVERSATION_NOT_FOUND }],
    [{ type: `https://errors.example/${CONVERSATION_NOT_FOUND}`, status: 404 }],
    [{ detail: { code: CONVERSATION_NOT_FOUND, message: "x" } }],
    [{ errors: [{ status: "404", code: CONVERSATION_NOT_FOUND, title: "x" }] }],
  ])("expectErrorCode reads the code from %j", (body) => {
    expectErrorCode(http(404, body), CONVERSATION_NOT_FOUND);
    expect(expectSomeErrorCode(http(404, body))).toBe(CONVERSATION_NOT_FOUND);
  });

  test("expectErrorCode fails on another code and on a body without one", () => {
    expect(() => expectErrorCode(http(404, { error: { code: "not_found" } }), CONVERSATION_NOT_FOUND)).toThrow(
      `expected error code "${CONVERSATION_NOT_FOUND}", got "not_found"`,
    );
    expect(() => expectSomeErrorCode(http(400, { message: "bad" }))).toThrow("machine-readable code");
    expect(() => expectSomeErrorCode(http(404, { detail: "Not Found" }))).toThrow("detail.code, errors[0].code");
  });

  test("expectSame compares JSON values ignoring key order, and shows both values when they differ", () => {
    expectSame({ a: 1, b: [1, { c: 2 }] }, { b: [1, { c: 2 }], a: 1 }, "value");
    expect(() => expectSame([1, 2], [2, 1], "order")).toThrow("order: expected [2,1], got [1,2]");
    expect(sameJson({ a: undefined }, {})).toBe(false);
    expect(sameJson([], {})).toBe(false);
  });
});

describe("stream expectations", () => {
  test("the event-stream media type is matched case-insensitively, parameters ignored", () => {
    expect(isEventStream({ "content-type": "Text/Event-Stream;charset=UTF-8" })).toBe(true);
    expect(isEventStream({ "content-type": "text/event-stream-x" })).toBe(false);
    expect(isEventStream({ "content-type": "application/json" })).toBe(false);
    expect(isEventStream({})).toBe(false);
  });

  test("expectStreamOk fails on a wrong media type, a problem, or a missing terminal event", () => {
    expectStreamOk(stream({}));
    expect(() => expectStreamOk(stream({ headers: { "content-type": "text/plain" } }))).toThrow("text/event-stream");
    expect(() => expectStreamOk(stream({ problems: [{ kind: "after-terminal", detail: "a delta" }] }))).toThrow(
      "after-terminal: a delta",
    );
    expect(() => expectStreamOk(stream({ terminal: undefined }))).toThrow("without a terminal event");
  });

  test("expectPlainHttpAnswer refuses an event stream and returns the plain body otherwise", () => {
    const plain = http(401, { error: { code: "unauthorized" } });
    expect(expectPlainHttpAnswer(stream({ status: 401, headers: plain.headers, http: plain }))).toBe(plain);
    expect(() => expectPlainHttpAnswer(stream({ status: 200 }))).toThrow("expected a plain HTTP answer");
  });
});
