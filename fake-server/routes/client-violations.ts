/**
 * `GET /__fake/client-violations`: what the session's client-rule observer recorded, filtered by
 * API key (or its redacted prefix) and by requirement.
 */
import type { ServerResponse } from "node:http";
import { ClientRequirementId, type ClientViolationReport } from "../../schemas/index.ts";
import type { AppContext, FakeRequest } from "../context.ts";
import { ApiError } from "../http/api-error.ts";
import { sendJson } from "../http/respond.ts";
import type { ClientViolationFilter } from "../client-rules/filter.ts";

function queryValue(query: Readonly<Record<string, unknown>>, name: string): string | undefined {
  if (!Object.hasOwn(query, name)) return undefined;
  const value = query[name];
  if (typeof value !== "string" || value === "") {
    throw new ApiError(400, "invalid_request", `${name} must be given once, with a value`);
  }
  return value;
}

/** GET /__fake/client-violations?key=<API key or prefix…>&requirement=CLIENT-n */
export function clientViolationsRoute(
  ctx: Pick<AppContext, "clientRules">,
  req: FakeRequest,
  res: ServerResponse,
): void {
  const query: Readonly<Record<string, unknown>> = req.query;
  const key = queryValue(query, "key");
  const requirement = queryValue(query, "requirement");
  if (requirement !== undefined && !ClientRequirementId.safeParse(requirement).success) {
    throw new ApiError(
      400,
      "invalid_request",
      `requirement must look like CLIENT-4, not ${JSON.stringify(requirement.slice(0, 40))}`,
    );
  }
  const filter: ClientViolationFilter = { key, requirement };
  const body: ClientViolationReport = {
    counts: ctx.clientRules.counts(filter),
    violations: ctx.clientRules.violations(filter),
  };
  sendJson(res, 200, body);
}
