/**
 * The JSON writers: the status of each successful operation, bodies sent whole or from a stored
 * serialisation, and the one writer of error bodies, in whichever of five shapes the behavior
 * chooses.
 */
import type { ServerResponse } from "node:http";
import type { z } from "zod";
import type { ErrorBody, FakeErrorCode, FlatErrorBody, ProblemBody } from "../../schemas/index.ts";
import type { Behavior, Operation } from "../behavior/behavior.ts";
import { withExtraFields } from "./extra-fields.ts";

type Headers = Readonly<Record<string, string>>;

/** The one place that decides the status of a successful operation. */
export function successStatus(behavior: Behavior, operation: Operation): number {
  return behavior.successStatus[operation];
}

function writable(res: ServerResponse): boolean {
  return !res.headersSent && !res.destroyed && !res.writableEnded;
}

/** Sends an already serialised JSON body (also used to replay a stored body byte for byte). */
export function sendJsonText(
  res: ServerResponse,
  status: number,
  text: string,
  headers: Headers = {},
  contentType = "application/json",
): void {
  if (!writable(res)) return;
  res.writeHead(status, {
    ...headers,
    "Content-Type": contentType,
    "Content-Length": String(Buffer.byteLength(text)),
  });
  res.end(text);
}

/**
 * Sends a JSON body given as a text head and an encoded tail: both go out in the same
 * write as the headers, and the tail (shared by many answers) is never copied into a string.
 */
export function sendJsonParts(res: ServerResponse, status: number, head: string, tail: Uint8Array): void {
  if (!writable(res)) return;
  res.writeHead(status, {
    "Content-Type": "application/json",
    "Content-Length": String(Buffer.byteLength(head) + tail.byteLength),
  });
  res.write(head);
  res.end(tail);
}

export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Headers = {}): void {
  sendJsonText(res, status, JSON.stringify(body), headers);
}

export function sendEmpty(res: ServerResponse, status: number, headers: Headers = {}): void {
  if (!writable(res)) return;
  res.writeHead(status, { ...headers });
  res.end();
}

/** Where RFC 9457 `type` URIs of the problem-json variant point; the last segment is the code. */
const PROBLEM_TYPE_BASE = "https://agent-service-fake.invalid/problems/";

/** FastAPI's `HTTPException(status_code, detail={...})`. */
interface FastApiErrorBody {
  detail: { code: string; message: string };
}

/** A JSON:API error document (jsonapi.org, "Error Objects"): `status` is a string there. */
interface JsonApiErrorBody {
  errors: { status: string; code: string; title: string; detail: string }[];
}

/**
 * The one function that writes an HTTP error body, in the behavior's format: the fake's
 * `{"error": {"code", "message"}}`, a flat `{code, message}`, RFC 9457 problem details,
 * FastAPI's `{"detail": {"code", "message"}}`, or a JSON:API `{"errors": [...]}`.
 */
export function sendError(
  res: ServerResponse,
  behavior: Pick<Behavior, "errorFormat" | "extraFields">,
  status: number,
  code: FakeErrorCode,
  message: string,
  headers: Headers = {},
): void {
  switch (behavior.errorFormat) {
    case "nested": {
      const body: ErrorBody = { error: { code, message } };
      sendJson(res, status, withExtraFields(behavior, body), headers);
      return;
    }
    case "flat": {
      const body: z.infer<typeof FlatErrorBody> = { code, message };
      sendJson(res, status, withExtraFields(behavior, body), headers);
      return;
    }
    case "problem": {
      const body: z.infer<typeof ProblemBody> = {
        type: `${PROBLEM_TYPE_BASE}${code}`,
        title: code.replaceAll("_", " "),
        status,
        detail: message,
      };
      const text = JSON.stringify(withExtraFields(behavior, body));
      sendJsonText(res, status, text, headers, "application/problem+json");
      return;
    }
    case "fastapi": {
      const body: FastApiErrorBody = { detail: { code, message } };
      sendJson(res, status, withExtraFields(behavior, body), headers);
      return;
    }
    case "jsonapi": {
      const body: JsonApiErrorBody = {
        errors: [{ status: String(status), code, title: code.replaceAll("_", " "), detail: message }],
      };
      sendJsonText(res, status, JSON.stringify(withExtraFields(behavior, body)), headers, "application/vnd.api+json");
      return;
    }
  }
}
