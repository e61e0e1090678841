import { expect, test } from "vitest";
import type { TestSpecification } from "vitest/node";
import { FAMILY_ORDER, CheckOrder, familyOfCheckFile } from "./check-order.ts";
import { SERVICE_REQUIREMENTS } from "../../requirements/catalog.ts";

const spec = (moduleId: string) => ({ moduleId }) as TestSpecification;

test("check files run family by family, listing and its costly -large file after the other families, the interaction property last", () => {
  const files = [
    "/c/interactions.check.ts",
    "/c/listing-large.check.ts",
    "/c/streaming.check.ts",
    "/c/delete.check.ts",
    "/c/auth.check.js",
    "/c/listing.check.ts",
    "/c/responses.check.ts",
  ].map(spec);
  expect(new CheckOrder().sort(files).map((f) => f.moduleId)).toEqual([
    "/c/auth.check.js",
    "/c/responses.check.ts",
    "/c/streaming.check.ts",
    "/c/delete.check.ts",
    "/c/listing.check.ts",
    "/c/listing-large.check.ts",
    "/c/interactions.check.ts",
  ]);
});

test("the order names every family of the catalog once, and a file belongs to the family its name starts with", () => {
  expect([...FAMILY_ORDER].sort()).toEqual([...new Set(SERVICE_REQUIREMENTS.map((r) => r.family))].sort());
  expect(familyOfCheckFile("listing-large")).toBe("listing");
  expect(familyOfCheckFile("alpha")).toBe("alpha");
});
