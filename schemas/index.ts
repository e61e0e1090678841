/**
 * The schemas of every body the service and the fake exchange, in the two strengths (spec and
 * fake), published as `agent-service-conformance/schemas`.
 */
export * from "./primitives.ts";
export * from "./request.ts";
export * from "./resources.ts";
export * from "./events.ts";
export * from "./errors.ts";
export * from "./client-violations.ts";
