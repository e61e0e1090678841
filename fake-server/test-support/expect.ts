/**
 * Assertions the fake's tests share on an answer: the fake's error body with a given status and
 * code, or a result or page of the fake's exact shape.
 */
import { expect } from "vitest";
import { ErrorBody, MessagePage, ResponseResult, type FakeErrorCode } from "../../schemas/index.ts";
import type { Reply } from "./client.ts";

/** The answer is the fake's JSON error body with this status and code; returns the body. */
export function expectError(reply: Reply, status: number, code: FakeErrorCode): ErrorBody {
  expect({ status: reply.status, body: reply.json }).toMatchObject({ status, body: { error: { code } } });
  expect(reply.headers["content-type"]).toBe("application/json");
  return ErrorBody.parse(reply.json);
}

export function expectResult(reply: Reply): ResponseResult {
  expect(reply.status, reply.text).toBe(200);
  return ResponseResult.parse(reply.json);
}

export function expectPage(reply: Reply): MessagePage {
  expect(reply.status, reply.text).toBe(200);
  return MessagePage.parse(reply.json);
}
