/**
 * A control endpoint's body checked against its schema, the 400 naming the wrong field, so a bad
 * request changes nothing: for fault rules, answer rules and an imported conversation alike.
 */
import type { z } from "zod";
import { ApiError } from "../http/api-error.ts";

/**
 * A control endpoint's JSON body checked against its schema; a 400 whose message names the
 * field otherwise (an unknown field included), so nothing is changed by a bad request.
 */
export function parseControlBody<S extends z.ZodType>(schema: S, body: unknown, what: string): z.output<S> {
  const parsed = schema.safeParse(body);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  if (issue === undefined) throw new ApiError(400, "invalid_request", `${what}: the body is not valid`);
  const field = issue.path.length === 0 ? "the body" : issue.path.map(String).join(".");
  if (issue.code === "unrecognized_keys") {
    const prefix = issue.path.length === 0 ? "" : `${field}.`;
    throw new ApiError(
      400,
      "invalid_request",
      `${what}: unknown field ${issue.keys.map((key) => JSON.stringify(prefix + key)).join(", ")}`,
    );
  }
  throw new ApiError(400, "invalid_request", `${what}: ${field}: ${issue.message}`);
}
