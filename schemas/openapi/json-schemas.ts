/**
 * Zod schemas as JSON Schema (draft 2020-12): standalone files for openapi/schemas/ and components
 * for the OpenAPI documents, the metadata rule written out by hand.
 */
import { z } from "zod";
import { FakeMetadata, METADATA_LIMITS } from "../request.ts";
import { FAKE_SCHEMAS, type NamedSchema } from "./named-schemas.ts";

export type JsonSchema = z.core.JSONSchema.BaseSchema;

/**
 * FakeMetadata is a hand-written refinement (see schemas/request.ts), which z.toJSONSchema
 * can only render as "anything". Describe the same rule from the same limits instead.
 */
function describeMetadata(ctx: { zodSchema: unknown; jsonSchema: JsonSchema }): void {
  if (ctx.zodSchema !== FakeMetadata) return;
  for (const key of Object.keys(ctx.jsonSchema)) delete ctx.jsonSchema[key];
  Object.assign(ctx.jsonSchema, {
    type: "object",
    description:
      `Traceability data: a flat JSON object of at most ${METADATA_LIMITS.maxKeys} string values, keys of 1 to ` +
      `${METADATA_LIMITS.maxKeyLength} characters, values of at most ${METADATA_LIMITS.maxValueLength} characters ` +
      "(the fake's rule; the spec only says the service validates it).",
    maxProperties: METADATA_LIMITS.maxKeys,
    propertyNames: { minLength: 1, maxLength: METADATA_LIMITS.maxKeyLength },
    additionalProperties: { type: "string", maxLength: METADATA_LIMITS.maxValueLength },
  });
}

function emit(entries: readonly NamedSchema[], io: NamedSchema["io"], uri: (name: string) => string) {
  const registry = z.registry<{ id: string; description: string }>();
  for (const entry of entries) registry.add(entry.schema, { id: entry.name, description: entry.description });
  return z.toJSONSchema(registry, { io, uri, metadata: registry, override: describeMetadata }).schemas;
}

/**
 * One JSON Schema (draft 2020-12) per named schema, in the list's order, each
 * referring to the others through `uri(name)`. Request and response schemas are
 * emitted separately because they are read from opposite sides (input vs output).
 */
function namedJsonSchemas(named: readonly NamedSchema[], uri: (name: string) => string): Map<string, JsonSchema> {
  const emitted = {
    input: emit(
      named.filter((s) => s.io === "input"),
      "input",
      uri,
    ),
    output: emit(
      named.filter((s) => s.io === "output"),
      "output",
      uri,
    ),
  };
  const result = new Map<string, JsonSchema>();
  for (const { name, io } of named) {
    const schema = emitted[io][name];
    if (!schema) throw new Error(`z.toJSONSchema emitted no schema for ${name}`);
    result.set(name, schema);
  }
  return result;
}

/** Standalone schemas: `$id` is `<Name>.json` and references are relative file names. */
export function standaloneSchemas(named: readonly NamedSchema[]): Map<string, JsonSchema> {
  return namedJsonSchemas(named, (name) => `${name}.json`);
}

/** The fake's schemas as the files of openapi/schemas/. */
export function schemaFiles(): Map<string, JsonSchema> {
  return standaloneSchemas(FAKE_SCHEMAS);
}

/** OpenAPI components: references point into `#/components/schemas`; no `$id` or `$schema` of their own. */
export function componentSchemas(named: readonly NamedSchema[]): Record<string, JsonSchema> {
  const components: Record<string, JsonSchema> = {};
  for (const [name, schema] of namedJsonSchemas(named, (n) => `#/components/schemas/${n}`)) {
    const { $id: _id, $schema: _dialect, ...rest } = schema;
    components[name] = rest;
  }
  return components;
}
