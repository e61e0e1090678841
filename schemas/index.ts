export * from "./primitives.ts";
export * from "./request.ts";
export * from "./resources.ts";
export * from "./events.ts";
export * from "./errors.ts";
export * from "./client-violations.ts";
