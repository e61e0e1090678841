/**
 * conformance.json's `interactions` object as a schema: the worker recognises the property's
 * summary by it, and `merge` reads it back from the shards' reports.
 */
import { z } from "zod";
import type { InteractionsSummary } from "../interactions/coverage.ts";

const DimensionSchema = z.object({
  covered: z.int().nonnegative(),
  total: z.int().nonnegative(),
  missing: z.array(z.string()),
});

export const InteractionsSummarySchema = z.object({
  seeds: z.array(z.int()),
  sequences: z.int().nonnegative(),
  operations: z.int().nonnegative(),
  creates: z.int().nonnegative(),
  coverage: z.object({
    transitions: DimensionSchema,
    orderings: DimensionSchema,
    inputs: DimensionSchema,
    client: DimensionSchema,
  }),
}) satisfies z.ZodType<InteractionsSummary>;

/** The summary a shared fixture's value carries (the property's outcome), if it carries one. */
export function interactionsSummaryOf(value: unknown): InteractionsSummary | undefined {
  if (typeof value !== "object" || value === null || !("summary" in value)) return undefined;
  const parsed = InteractionsSummarySchema.safeParse(value.summary);
  return parsed.success ? parsed.data : undefined;
}
