import { readFile, readdir } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { Validator } from "@seriousme/openapi-schema-validator";
import { beforeAll, describe, expect, test } from "vitest";
import type { z } from "zod";
import { FakeErrorCode } from "../errors.ts";
import { contractDocument } from "./contract-document.ts";
import type { JsonObject } from "./error-responses.ts";
import { fakeDocument } from "./fake-document.ts";
import { renderOpenApiFiles } from "./files.ts";
import { generatedSchemaValidator } from "../../test-support/json-schema-validator.ts";
import { FAKE_SCHEMAS } from "./named-schemas.ts";

const OUT_DIR = fileURLToPath(new URL("../../openapi/", import.meta.url));

async function committedFiles(): Promise<Record<string, string>> {
  const names = ["openapi.json", "fake.json", ...(await readdir(`${OUT_DIR}schemas`)).map((n) => `schemas/${n}`)];
  const entries = await Promise.all(names.map(async (n) => [n, await readFile(`${OUT_DIR}${n}`, "utf8")] as const));
  return Object.fromEntries(entries);
}

/** Follows a local `$ref` ("#/components/...") inside the document. */
function deref(doc: JsonObject, node: JsonObject): JsonObject {
  if (typeof node.$ref !== "string") return node;
  return node.$ref
    .slice(2)
    .split("/")
    .reduce<JsonObject>((at, key) => at[key] as JsonObject, doc);
}

const at = (node: unknown, ...keys: string[]): JsonObject =>
  keys.reduce<JsonObject>((current, key) => {
    const next = current[key];
    if (typeof next !== "object" || next === null) throw new Error(`no ${keys.join(".")} (missing ${key})`);
    return next as JsonObject;
  }, node as JsonObject);

test("the committed openapi/ folder is what the generator produces now", async () => {
  const generated = Object.fromEntries(renderOpenApiFiles());
  expect(await committedFiles(), "openapi/ is stale: run npm run openapi").toEqual(generated);
});

test("generation is deterministic and every file ends with a newline", () => {
  const first = renderOpenApiFiles();
  expect(renderOpenApiFiles()).toEqual(first);
  for (const [path, text] of first) expect(text.endsWith("}\n"), path).toBe(true);
});

test.each([
  ["openapi.json", contractDocument()],
  ["fake.json", fakeDocument()],
])("%s passes an independent OpenAPI 3.1 validator", async (_name, document) => {
  const validator = new Validator();
  const result = await validator.validate(document);
  expect(result.errors).toBeUndefined();
  expect(result.valid).toBe(true);
  expect(validator.version).toBe("3.1");
});

describe("fake.json describes the reference fake", () => {
  const doc = fakeDocument();
  const paths = at(doc, "paths");
  const operation = (path: string, method: string) => at(paths, path, method);
  const create = operation("/v1/agents/{agent_id}/responses", "post");
  const stream = operation("/v1/agents/{agent_id}/responses/stream", "post");
  const list = operation("/v1/agents/{agent_id}/conversations/{conversation_id}/messages", "get");
  const remove = operation("/v1/agents/{agent_id}/conversations/{conversation_id}", "delete");

  test("it has exactly the four operations of the spec, under /v1", () => {
    const found = Object.entries(paths).flatMap(([path, item]) =>
      Object.entries(item as JsonObject)
        .filter(([key]) => key !== "parameters")
        .map(([method, op]) => `${method.toUpperCase()} ${path} ${String((op as JsonObject).operationId)}`),
    );
    expect(found.sort()).toEqual([
      "DELETE /v1/agents/{agent_id}/conversations/{conversation_id} deleteConversation",
      "GET /v1/agents/{agent_id}/conversations/{conversation_id}/messages listMessages",
      "POST /v1/agents/{agent_id}/responses createResponse",
      "POST /v1/agents/{agent_id}/responses/stream createResponseStream",
    ]);
  });

  test("every operation needs the bearer scheme", () => {
    expect(at(doc, "components", "securitySchemes", "bearerAuth")).toMatchObject({ type: "http", scheme: "bearer" });
    expect(doc.security).toEqual([{ bearerAuth: [] }]);
  });

  test("both creates require Idempotency-Key, and the stream asks for text/event-stream", () => {
    for (const op of [create, stream]) {
      const params = (op.parameters as JsonObject[]).map((p) => deref(doc, p));
      expect(params).toContainEqual(expect.objectContaining({ name: "Idempotency-Key", in: "header", required: true }));
      expect(deref(doc, at(op, "requestBody", "content", "application/json", "schema"))).toBe(
        at(doc, "components", "schemas", "ResponseRequest"),
      );
    }
    expect(Object.keys(at(stream, "responses", "200", "content"))).toEqual(["text/event-stream"]);
    // The body is text (validators check the schema against it); each event's data is a StreamEvent.
    expect(at(stream, "responses", "200", "content", "text/event-stream", "schema")).toMatchObject({ type: "string" });
    expect(at(stream, "responses", "200", "content", "text/event-stream", "x-event-data")).toEqual({
      $ref: "#/components/schemas/StreamEvent",
    });
    expect((stream.parameters as JsonObject[]).map((p) => deref(doc, p))).toContainEqual(
      expect.objectContaining({ name: "Accept", in: "header" }),
    );
  });

  test("the listing's query parameters carry the spec's defaults and bounds, and delete answers 204", () => {
    const params = (list.parameters as JsonObject[]).map((p) => deref(doc, p));
    const page = params.find((p) => p.name === "page");
    const pageSize = params.find((p) => p.name === "page_size");
    expect(page?.schema).toMatchObject({ type: "integer", minimum: 1, default: 1 });
    expect(pageSize?.schema).toMatchObject({ type: "integer", minimum: 1, maximum: 100, default: 50 });
    expect(Object.keys(at(remove, "responses")).filter((s) => s.startsWith("2"))).toEqual(["204"]);
    expect(at(remove, "responses", "204").content).toBeUndefined();
  });

  test("error responses use ErrorBody and name only codes the fake has", () => {
    const statuses = new Set<string>();
    for (const op of [create, stream, list, remove]) {
      for (const [status, response] of Object.entries(at(op, "responses"))) {
        if (!/^[45]/.test(status)) continue;
        statuses.add(status);
        expect(at(response, "content", "application/json", "schema")).toEqual({
          $ref: "#/components/schemas/ErrorBody",
        });
        const named = [...String((response as JsonObject).description).matchAll(/`([a-z_]+)`/g)].map((m) => m[1]);
        const codes = named.filter((code) => FakeErrorCode.safeParse(code).success);
        expect(codes.length, `${status} names no error code`).toBeGreaterThan(0);
      }
    }
    expect([...statuses].sort()).toEqual(["400", "401", "404", "405", "409", "413", "415", "429", "500", "503"]);
    expect(String(at(remove, "responses", "404").description)).toContain("`conversation_not_found`");
  });
});

describe("the fake's emitted JSON Schemas agree with its Zod schemas", () => {
  let check: ReturnType<typeof generatedSchemaValidator>;
  beforeAll(() => {
    check = generatedSchemaValidator();
  });
  const id = "0b7e2c3a-2f4e-4c1e-9d8a-5b6c7d8e9f01";
  const at1 = "2026-01-02T03:04:05.678Z";
  const citation = {
    document_id: "doc-1",
    title: "Refunds",
    url: "https://docs.example/refunds",
    snippet: "Within 30 days.",
  };
  const result = { conversation_id: id, response: "You can get a refund.", citations: [citation] };
  const page = {
    conversation: { id, created_at: at1, updated_at: at1 },
    items: [
      { id, role: "user", content: "refund?", created_at: at1 },
      { id, role: "assistant", content: "You can get a refund.", citations: [citation], created_at: at1 },
    ],
    page: 1,
    page_size: 50,
    total: 2,
    has_more: false,
  };
  const manyKeys = Object.fromEntries(Array.from({ length: 17 }, (_, i) => [`k${i}`, "v"]));

  // [schema name, value, whether the fake's Zod schema accepts it]
  const cases: [string, unknown, boolean][] = [
    ["ResponseResult", result, true],
    ["ResponseResult", { ...result, extra: 1 }, false],
    ["ResponseResult", { ...result, citations: [{ ...citation, url: "not a url" }] }, false],
    ["ResponseResult", { ...result, conversation_id: "not-a-uuid" }, false],
    ["MessagePage", page, true],
    ["MessagePage", { ...page, page_size: 101 }, false],
    ["MessagePage", { ...page, conversation: { ...page.conversation, created_at: "2026-01-02T03:04:05Z" } }, false],
    ["MessagePage", { ...page, items: [{ id, role: "system", content: "x", created_at: at1 }] }, false],
    ["StreamEvent", { type: "response.created", conversation_id: id }, true],
    ["StreamEvent", { type: "response.output_text.delta", delta: "You " }, true],
    [
      "StreamEvent",
      { type: "response.completed", response: { conversation_id: id, output_text: "x", citations: [] } },
      true,
    ],
    ["StreamEvent", { type: "error", code: "agent_failed", message: "the agent failed" }, true],
    ["StreamEvent", { type: "response.updated" }, false],
    ["StreamEvent", { type: "response.completed", response: result }, false],
    ["ErrorBody", { error: { code: "conversation_not_found", message: "no such conversation" } }, true],
    ["ErrorBody", { error: { code: "made_up", message: "x" } }, false],
    ["ErrorBody", { code: "invalid_json", message: "x" }, false],
    [
      "ResponseRequest",
      { message: "hi", conversation_id: null, external_reference: "ref-1", metadata: { order: "42" } },
      true,
    ],
    ["ResponseRequest", { message: "hi", unknown_field: true }, true],
    ["ResponseRequest", { message: "" }, false],
    ["ResponseRequest", { message: "hi", metadata: manyKeys }, false],
    ["ResponseRequest", { message: "hi", metadata: { nested: { a: "b" } } }, false],
    ["ResponseRequest", { message: "hi", metadata: { ["k".repeat(65)]: "v" } }, false],
    ["ResponseRequest", { message: "hi", metadata: ["a"] }, false],
    ["ResponseRequest", { conversation_id: id }, false],
  ];

  const zodSchema = (name: string): z.ZodType => {
    const named = FAKE_SCHEMAS.find((s) => s.name === name);
    if (!named) throw new Error(`no named schema ${name}`);
    return named.schema;
  };

  test.each(cases)("%s %j -> %s", (name, value, accepted) => {
    const parsed = zodSchema(name).safeParse(value);
    expect(parsed.success, "the case's expectation is wrong about the Zod schema").toBe(accepted);
    const emitted = check(name, value);
    expect(emitted.valid, emitted.errors).toBe(accepted);
  });

  test("every generated schema file compiles under strict ajv, and none accepts null", () => {
    expect(FAKE_SCHEMAS.map((s) => check(s.name, null).valid)).toEqual(FAKE_SCHEMAS.map(() => false));
  });
});
