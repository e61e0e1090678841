/**
 * The catalog as a type: every id is a literal of RequirementId, so code that names a
 * requirement the catalog does not have fails to compile (checked by `tsc`, which runs first in npm test).
 */
import { expect, expectTypeOf, test } from "vitest";
import { REQUIREMENTS, requirementById, type RequirementId } from "./catalog.ts";

test("RequirementId is the union of the catalog's ids, and a typo is not one", () => {
  expectTypeOf<"SSE-1">().toExtend<RequirementId>();
  expectTypeOf<"CLIENT-10">().toExtend<RequirementId>();
  expectTypeOf<"SSE-11">().not.toExtend<RequirementId>();
  // @ts-expect-error: SSE-11 is not in the catalog
  const typo: RequirementId = "SSE-11";
  expect(requirementById(typo)).toBeUndefined();
});

test("ids are unique, each found by requirementById", () => {
  const ids = REQUIREMENTS.map((r) => r.id);
  expect(new Set(ids).size).toBe(ids.length);
  expect(ids.filter((id) => requirementById(id)?.id !== id)).toEqual([]);
});
