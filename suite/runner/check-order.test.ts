import { expect, test } from "vitest";
import type { TestSpecification } from "vitest/node";
import { CheckOrder } from "./check-order.ts";

const spec = (moduleId: string) => ({ moduleId }) as TestSpecification;

test("check files run alphabetically with the costly -large files last", () => {
  const files = ["/c/listing-large.check.ts", "/c/streaming.check.ts", "/c/auth.check.js", "/c/listing.check.ts"].map(spec);
  expect(new CheckOrder().sort(files).map((f) => f.moduleId)).toEqual([
    "/c/auth.check.js",
    "/c/listing.check.ts",
    "/c/streaming.check.ts",
    "/c/listing-large.check.ts",
  ]);
});
