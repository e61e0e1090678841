/**
 * Which requirement a broken rule of the model names, by endpoint or caller. Kept apart from
 * the step files so that no step imports another.
 */
import type { RequirementId } from "../../requirements/catalog.ts";
import type { Caller, CreateOp } from "./operation.ts";

/** The idempotency requirement a key rule breaks, by the endpoint that broke it. */
export function idempotencyRequirement(op: CreateOp, rule: "answer" | "consumed" | "conflict"): RequirementId {
  if (op.endpoint === "stream") return "IDEM-4";
  return rule === "answer" ? "IDEM-1" : rule === "consumed" ? "IDEM-2" : "IDEM-3";
}

/** The requirement an exchange that was lost or misplaced breaks, by its endpoint. */
export function exchangeRequirement(endpoint: CreateOp["endpoint"]): RequirementId {
  return endpoint === "stream" ? "SSE-8" : "RESP-2";
}

/** The scope requirement another identity's attempt breaks. */
export const scopeRequirement = (who: Caller, operation: "list" | "delete"): RequirementId =>
  who === "otherKey" ? "SCOPE-3" : operation === "list" ? "SCOPE-1" : "SCOPE-2";
