/**
 * The shapes of an observed body the spec leaves a service free to refuse, named as the
 * interaction property names the ones it generates, and the optional fields whose refusal is RESP-6.
 */
import { expect, test } from "vitest";
import { hasOptionalFields, openShapeOf } from "./open-shape.ts";

test("metadata that is not a flat object of strings, and a message of 2,048 characters or more, are open shapes; the rest is not", () => {
  const shapes = [
    { message: "hi" },
    { message: "hi", metadata: { source: "web" } },
    { message: "hi", metadata: {} },
    { message: "hi", metadata: { client: { name: "x" } } },
    { message: "hi", metadata: { tags: ["a"] } },
    { message: "hi", metadata: { attempt: 3 } },
    { message: "hi", metadata: { parent: null } },
    { message: "x".repeat(2_047) },
    { message: "x".repeat(2_048) },
    "not an object",
  ].map(openShapeOf);
  expect(shapes).toEqual([
    undefined,
    undefined,
    undefined,
    "metadata:nested",
    "metadata:arrays",
    "metadata:numbers",
    "metadata:nulls",
    undefined,
    "message:long",
    undefined,
  ]);
});

test("optional fields: external_reference or metadata present, even null", () => {
  expect(
    [{ message: "hi" }, { message: "hi", external_reference: null }, { message: "hi", metadata: {} }, null].map(
      hasOptionalFields,
    ),
  ).toEqual([false, true, true, false]);
});
