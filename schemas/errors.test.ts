import { describe, expect, test } from "vitest";
import { errorCode } from "./index.ts";

const CODE = "conversation_not_found";

describe("errorCode reads every accepted error shape", () => {
  test.each([
    ["error.code", { error: { code: CODE, message: "x" } }],
    ["a top-level code", { code: CODE, message: "x" }],
    ["an RFC 9457 code extension", { type: "about:blank", title: "Not Found", status: 404, code: CODE }],
    ["an RFC 9457 type URL", { type: `https://errors.example/${CODE}`, title: "Not found", status: 404 }],
    ["an RFC 9457 type URN", { type: `urn:problem:${CODE}`, status: 404 }],
    ["an RFC 9457 type fragment", { type: `https://errors.example/problems#${CODE}` }],
    ["FastAPI's detail.code", { detail: { code: CODE, message: "x" } }],
    ["JSON:API's errors[0].code", { errors: [{ status: "404", code: CODE, title: "Not found" }] }],
  ])("%s", (_, body) => {
    expect(errorCode(body)).toBe(CODE);
  });
});

describe("errorCode takes the first of error.code, code, detail.code, errors[0].code and a problem type", () => {
  test.each([
    [{ error: { code: "nested" }, code: "flat", detail: { code: "detail" }, errors: [{ code: "jsonapi" }] }, "nested"],
    [
      { code: "flat", detail: { code: "detail" }, errors: [{ code: "jsonapi" }], type: "https://e.example/typed" },
      "flat",
    ],
    [{ detail: { code: "detail" }, errors: [{ code: "jsonapi" }], type: "https://e.example/typed" }, "detail"],
    [{ errors: [{ code: "jsonapi" }], type: "https://e.example/typed" }, "jsonapi"],
    // A place without a usable code does not hide the next one.
    [{ error: "text only", code: "flat" }, "flat"],
    [{ error: { code: 404 }, detail: { code: "detail" } }, "detail"],
    [{ detail: "Conflict", errors: [{ code: "jsonapi" }] }, "jsonapi"],
    [{ errors: [{ title: "no code" }], type: "https://e.example/typed" }, "typed"],
  ])("%j -> %s", (body, code) => {
    expect(errorCode(body)).toBe(code);
  });
});

describe("errorCode finds no code in bodies that carry none", () => {
  test.each([
    ["FastAPI's plain detail", { detail: "Not Found" }],
    // Each item's `type` names the rule one field broke, the same for different refusals.
    [
      "FastAPI's validation list",
      { detail: [{ loc: ["body", "message"], msg: "Field required", type: "missing", input: {} }] },
    ],
    ["an empty JSON:API error list", { errors: [] }],
    [
      "a JSON:API error without a code, then one with",
      { errors: [{ status: "404", title: "Not found" }, { code: CODE }] },
    ],
    ["a problem of type about:blank", { type: "about:blank", title: "Not Found", status: 404 }],
    ["an empty code", { code: "" }],
    ["a numeric code", { code: 404, message: "Not Found" }],
    ["a message only", { message: "no code here" }],
    ["a JSON string", "plain text"],
    ["null", null],
    ["nothing", undefined],
  ])("%s", (_, body) => {
    expect(errorCode(body)).toBeUndefined();
  });
});
