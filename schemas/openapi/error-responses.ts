/**
 * The error statuses of the OpenAPI documents: each with the fake's codes and why an operation
 * answers it, written as the Response Objects both documents list.
 */
import type { FakeErrorCode } from "../errors.ts";

/** A JSON value of the OpenAPI document. */
export type JsonObject = { [key: string]: unknown };

/** The HTTP error statuses the reference fake sends (DESIGN.md, "Reference fake"). */
export type ErrorStatus = 400 | 401 | 404 | 405 | 409 | 413 | 415 | 429 | 500 | 503;

/** Why an operation answers with an error status, and which of the fake's codes it carries. */
export interface ErrorCase {
  status: ErrorStatus;
  codes: readonly FakeErrorCode[];
  when: string;
}

const header = (description: string, schema: JsonObject = { type: "string" }): JsonObject => ({ description, schema });

const RETRY_AFTER = "RFC 9110 `Retry-After`: how long to wait before trying again.";

/** Headers the fake adds to some error statuses. */
const ERROR_HEADERS: Partial<Record<ErrorStatus, JsonObject>> = {
  401: { "WWW-Authenticate": header("Always `Bearer`.", { type: "string", const: "Bearer" }) },
  405: { Allow: header("The methods this path supports.") },
  409: { "Retry-After": header(`${RETRY_AFTER} Sent with \`idempotency_key_in_use\` only.`) },
  429: { "Retry-After": header(RETRY_AFTER) },
  503: { "Retry-After": header(RETRY_AFTER) },
};

const INJECTED_WHEN =
  "Sent by the fake only when the request's `X-Fake-Fault` header asks for this status; nothing is changed.";

/** The fault-injection statuses: never sent unless a client asks the fake for them. */
export const INJECTED: readonly ErrorCase[] = [
  { status: 429, codes: ["rate_limited"], when: INJECTED_WHEN },
  { status: 500, codes: ["internal_error"], when: INJECTED_WHEN },
  { status: 503, codes: ["service_unavailable"], when: INJECTED_WHEN },
];

/** A malformed `X-Fake-Fault` header, or one sent while fault injection is switched off. */
export const BAD_FAULT_HEADER =
  "a malformed `X-Fake-Fault` header, or one sent to a fake started with fault injection off";

export const UNAUTHORIZED: ErrorCase = {
  status: 401,
  codes: ["unauthorized"],
  when: "No `Authorization: Bearer` key, or an unknown key. The spec only says such a request gets no data.",
};

export const METHOD_NOT_ALLOWED: ErrorCase = {
  status: 405,
  codes: ["method_not_allowed"],
  when: "Sent for any method this path does not define (listed here because OpenAPI has no per-path error responses).",
};

const codeList = (codes: readonly FakeErrorCode[]) => codes.map((code) => `\`${code}\``).join(", ");

/** The OpenAPI Response Object of one error case: the fake's ErrorBody, its codes in the description. */
function errorResponse(errorCase: ErrorCase): JsonObject {
  const headers = ERROR_HEADERS[errorCase.status];
  return {
    description: `${errorCase.when} Error codes sent by the fake: ${codeList(errorCase.codes)}.`,
    ...(headers ? { headers } : {}),
    content: { "application/json": { schema: { $ref: "#/components/schemas/ErrorBody" } } },
  };
}

/** The `responses` entries of an operation's error cases, in status order. */
export function errorResponses(cases: readonly ErrorCase[]): JsonObject {
  const sorted = [...cases].sort((a, b) => a.status - b.status);
  const statuses = sorted.map((c) => c.status);
  const duplicate = statuses.find((status, i) => statuses.indexOf(status) !== i);
  if (duplicate !== undefined) throw new Error(`error status ${duplicate} is listed twice for one operation`);
  return Object.fromEntries(sorted.map((c) => [String(c.status), errorResponse(c)]));
}
