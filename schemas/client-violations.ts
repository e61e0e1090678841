/**
 * What the reference fake reports about the clients that call it: requests that broke one of the
 * spec's client rules (catalog family `client`, IDs CLIENT-n). Secrets never appear: API keys are
 * cut to their first 6 characters and "…", bodies to a short excerpt.
 */
import { z } from "zod";
import { FakeTimestamp } from "./primitives.ts";

export const ClientRequirementId = z.string().regex(/^CLIENT-\d+$/);

/** One request involved in a violation, as the fake saw it. */
export const ClientViolationRequest = z.strictObject({
  method: z.string(),
  /** The path without the query string. */
  path: z.string(),
  idempotencyKey: z.string().optional(),
  /** When the request arrived. */
  at: FakeTimestamp,
  /** The status answered; absent while the request is still running. */
  status: z.int().optional(),
  /** The start of the JSON body, cut short with "…". */
  bodyExcerpt: z.string().optional(),
});
export type ClientViolationRequest = z.infer<typeof ClientViolationRequest>;

export const ClientViolation = z.strictObject({
  requirement: ClientRequirementId,
  /** The spec sentence of the requirement. */
  spec: z.string().min(1),
  /** What the client did and what to do instead. */
  message: z.string().min(1),
  /** The API key's first 6 characters and "…"; null when no key could be read. */
  apiKey: z.string().nullable(),
  /** When the violation was recorded. */
  at: FakeTimestamp,
  /** The offending request last; earlier requests it is judged against come first. */
  requests: z.array(ClientViolationRequest).min(1),
});
export type ClientViolation = z.infer<typeof ClientViolation>;

/** How often one requirement was broken since the start or the last reset (not capped by eviction). */
export const ClientViolationCount = z.strictObject({
  requirement: ClientRequirementId,
  /** A few words naming the violation. */
  title: z.string().min(1),
  count: z.int().positive(),
});
export type ClientViolationCount = z.infer<typeof ClientViolationCount>;

/** Body of `GET /__fake/client-violations`. */
export const ClientViolationReport = z.strictObject({
  counts: z.array(ClientViolationCount),
  /** Oldest first. */
  violations: z.array(ClientViolation),
});
export type ClientViolationReport = z.infer<typeof ClientViolationReport>;
