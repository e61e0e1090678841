import { describe, expect, test } from "vitest";
import type { z } from "zod";
import { CONVERSATION_NOT_FOUND, errorCode } from "../errors.ts";
import { contractDocument } from "./contract-document.ts";
import { CONTRACT_SCHEMAS } from "./contract-schemas.ts";
import type { JsonObject } from "./error-responses.ts";
import { errorBodyWithCode } from "./error-shapes.ts";
import { generatedSchemaValidator } from "../../test-support/json-schema-validator.ts";

// openapi.json is the contract: what every conforming service answers. It must not hold a
// service to the fake's choices, and its schemas must accept exactly what the suite does.

const doc = contractDocument();
const operations = Object.entries(doc.paths as JsonObject).flatMap(([path, item]) =>
  Object.entries(item as JsonObject)
    .filter(([key]) => key !== "parameters")
    .map(([method, op]) => ({
      path,
      method,
      op: op as JsonObject & { operationId: string; responses: Record<string, JsonObject> },
    })),
);
const operation = (id: string) => {
  const found = operations.find((o) => o.op.operationId === id);
  if (!found) throw new Error(`no operation ${id}`);
  return found.op;
};

/** Every value anywhere in the document, with its path. */
function* walk(node: unknown, path: string[] = []): Generator<[string[], unknown]> {
  yield [path, node];
  if (typeof node === "object" && node !== null)
    for (const [key, child] of Object.entries(node)) yield* walk(child, [...path, key]);
}

describe("the contract leaves open what the spec leaves open", () => {
  test("successes are any 2xx: no operation names a success status of its own", () => {
    for (const { op } of operations) {
      expect(
        Object.keys(op.responses).filter((status) => status.startsWith("2")),
        op.operationId,
      ).toEqual(["2XX"]);
    }
  });

  test("errors are the spec's where it names them (409 for a reused key, 404 for a delete) and any 4xx or 5xx otherwise", () => {
    const statuses = Object.fromEntries(operations.map(({ op }) => [op.operationId, Object.keys(op.responses).sort()]));
    expect(statuses).toEqual({
      createResponse: ["2XX", "409", "4XX", "5XX"],
      createResponseStream: ["2XX", "409", "4XX", "5XX"],
      listMessages: ["2XX", "4XX", "5XX"],
      deleteConversation: ["2XX", "404", "4XX", "5XX"],
    });
  });

  test("an error has any body or none, except the delete's 404, which carries conversation_not_found in any accepted shape", () => {
    for (const { op } of operations) {
      for (const [status, response] of Object.entries(op.responses)) {
        if (status === "2XX" || (op.operationId === "deleteConversation" && status === "404")) continue;
        expect(response.content, `${op.operationId} ${status}`).toBeUndefined();
      }
    }
    const notFound = operation("deleteConversation").responses["404"]?.content as JsonObject;
    expect(Object.keys(notFound)).toEqual(["application/json", "application/problem+json", "application/vnd.api+json"]);
    for (const media of Object.values(notFound))
      expect(media).toEqual({ schema: { $ref: "#/components/schemas/ConversationNotFoundBody" } });
  });

  test("a delete's success may have any body or none; the stream is text/event-stream, whose parameters no schema pins", () => {
    expect(operation("deleteConversation").responses["2XX"]?.content).toBeUndefined();
    const content = operation("createResponseStream").responses["2XX"]?.content as JsonObject;
    expect(Object.keys(content)).toEqual(["text/event-stream"]);
    expect(content["text/event-stream"]).toMatchObject({
      schema: { type: "string" },
      "x-event-data": { $ref: "#/components/schemas/StreamEvent" },
    });
  });

  test("nothing of the fake's: no closed objects, no fault header, no replay header, no fake limits or codes", () => {
    const found = [...walk(doc)].flatMap(([path, value]) => {
      const key = path.at(-1);
      if (key === "additionalProperties" && value === false) return [`${path.join(".")}: closed object`];
      if (key === "unevaluatedProperties" && value === false) return [`${path.join(".")}: closed object`];
      if (
        typeof value === "string" &&
        /X-Fake-Fault|Idempotent-Replayed|idempotency_key_reused|agent_failed/.test(value)
      )
        return [`${path.join(".")}: ${value.slice(0, 60)}`];
      if (key === "maxLength" || key === "maxProperties") return [`${path.join(".")}: a limit`];
      return [];
    });
    expect(found).toEqual([]);
    expect(Object.keys((doc.components as JsonObject).parameters as JsonObject)).not.toContain("FakeFault");
    expect(Object.keys((doc.components as JsonObject).schemas as JsonObject)).not.toContain("ErrorCode");
  });
});

describe("the contract's schemas accept exactly what the suite's spec schemas accept", () => {
  const check = generatedSchemaValidator("contract");
  const zod = (name: string): z.ZodType => {
    const named = CONTRACT_SCHEMAS.find((s) => s.name === name);
    if (!named) throw new Error(`no contract schema ${name}`);
    return named.schema;
  };
  const id = "0b7e2c3a-2f4e-4c1e-9d8a-5b6c7d8e9f01";
  const at = "2026-01-02T03:04:05.678Z";
  const citation = {
    document_id: "doc-1",
    title: "Refunds",
    url: "https://docs.example/refunds",
    snippet: "Within 30 days.",
  };
  const result = { conversation_id: id, response: "You can get a refund.", citations: [citation] };
  const page = {
    conversation: { id, created_at: at, updated_at: at },
    items: [{ id, role: "user", content: "x", created_at: at }],
    page: 1,
    page_size: 50,
    total: 1,
    has_more: false,
  };

  // [schema, value, accepted]
  const cases: [string, unknown, boolean][] = [
    ["ResponseResult", result, true],
    ["ResponseResult", { ...result, model: "m-1", citations: [{ ...citation, score: 0.9 }] }, true],
    ["ResponseResult", { ...result, citations: ["doc-1", 7, null] }, true],
    ["ResponseResult", { ...result, citations: [] }, true],
    ["ResponseResult", { conversation_id: id, response: "x" }, false],
    ["ResponseResult", { ...result, conversation_id: "not-a-uuid" }, false],
    ["ResponseResult", { ...result, response: 7 }, false],
    ["MessagePage", page, true],
    ["MessagePage", { ...page, conversation: { id, created_at: 1_767_323_045, updated_at: 1_767_323_045 } }, true],
    [
      "MessagePage",
      { ...page, conversation: { id, created_at: "2026-01-02T04:04:05.678901+01:00", updated_at: at } },
      true,
    ],
    ["MessagePage", { ...page, items: [{ role: "tool", note: "looked it up" }, "free text"], cursor: "abc" }, true],
    ["MessagePage", { ...page, page_size: 100 }, true],
    ["MessagePage", { ...page, page_size: 101 }, false],
    ["MessagePage", { ...page, page: 0 }, false],
    ["MessagePage", { ...page, items: Array.from({ length: 101 }, () => ({})) }, false],
    ["MessagePage", { ...page, conversation: { id, created_at: "", updated_at: at } }, false],
    ["MessagePage", { ...page, has_more: "no" }, false],
    ["StreamEvent", { type: "response.created" }, true],
    ["StreamEvent", { type: "response.created", conversation_id: id, response_id: "r-1" }, true],
    ["StreamEvent", { type: "response.output_text.delta", delta: "You ", index: 0 }, true],
    [
      "StreamEvent",
      { type: "response.completed", response: { conversation_id: id, output_text: "x", citations: [{}] } },
      true,
    ],
    ["StreamEvent", { type: "error", code: "agent_failed", message: "the agent failed", retryable: false }, true],
    ["StreamEvent", { type: "response.updated" }, false],
    ["StreamEvent", { type: "response.output_text.delta" }, false],
    ["StreamEvent", { type: "response.completed", response: result }, false],
    [
      "ResponseRequest",
      { message: "hi", conversation_id: null, external_reference: null, metadata: { nested: { a: [1] } }, extra: true },
      true,
    ],
    ["ResponseRequest", { message: "" }, true],
    ["ResponseRequest", { message: "hi", metadata: ["a"] }, false],
    ["ResponseRequest", { conversation_id: id }, false],
    ["ErrorBody", { error: { code: "conversation_not_found", message: "x" } }, true],
    ["ErrorBody", { code: "conversation_not_found", message: "x" }, true],
    ["ErrorBody", { detail: { code: "conversation_not_found", message: "x" } }, true],
    ["ErrorBody", { errors: [{ status: "404", code: "conversation_not_found", title: "x" }] }, true],
    ["ErrorBody", { type: "https://errors.example/conversation_not_found", title: "Not found", status: 404 }, true],
    ["ErrorBody", { message: "not found" }, false],
    ["ConversationNotFoundBody", { error: { code: CONVERSATION_NOT_FOUND, message: "x" } }, true],
    ["ConversationNotFoundBody", { code: CONVERSATION_NOT_FOUND }, true],
    ["ConversationNotFoundBody", { detail: { code: CONVERSATION_NOT_FOUND } }, true],
    ["ConversationNotFoundBody", { errors: [{ code: CONVERSATION_NOT_FOUND }, { code: "other" }] }, true],
    ["ConversationNotFoundBody", { type: "https://errors.example/problems/conversation_not_found", status: 404 }, true],
    ["ConversationNotFoundBody", { type: "urn:problem:conversation_not_found" }, true],
    ["ConversationNotFoundBody", { error: { code: "not_found", message: "x" } }, false],
    ["ConversationNotFoundBody", { type: "https://errors.example/not-conversation_not_found-at-all" }, false],
    ["ConversationNotFoundBody", { type: "about:blank", status: 404 }, false],
  ];

  test.each(cases)("%s %j -> %s", (name, value, accepted) => {
    expect(zod(name).safeParse(value).success, "the case's expectation is wrong about the Zod schema").toBe(accepted);
    const emitted = check(name, value);
    expect(emitted.valid, emitted.errors).toBe(accepted);
  });

  test("ConversationNotFoundBody is a body errorCode() reads conversation_not_found from, and only such a body", () => {
    const bodies: unknown[] = cases
      .filter(([name]) => name === "ConversationNotFoundBody" || name === "ErrorBody")
      .map(([, value]) => value);
    bodies.push(null, "conversation_not_found", { type: "conversation_not_found" }, { errors: [] }, { code: "" });
    for (const body of bodies) {
      expect(errorBodyWithCode(CONVERSATION_NOT_FOUND).safeParse(body).success, JSON.stringify(body)).toBe(
        errorCode(body) === CONVERSATION_NOT_FOUND,
      );
    }
  });
});
