/**
 * A citation a client developer scripts (answer rules, `--answers`, fixtures, the state file).
 * The spec leaves a citation's fields open, so any JSON object is taken and served back as
 * given: `{"title", "url"}`, `{"title", "url", "page"}`, the fake's own shape, anything.
 */
import { z } from "zod";
import type { Citation } from "../../schemas/index.ts";

type JsonValue = null | boolean | number | string | readonly JsonValue[] | { readonly [key: string]: JsonValue };
export type JsonObject = { readonly [key: string]: JsonValue };

/** How deep a citation may nest: deep enough for any real payload, shallow enough that checking it cannot exhaust the stack. */
const MAX_DEPTH = 32;

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" &&
  value !== null &&
  !Array.isArray(value) &&
  [Object.prototype, null].includes(Object.getPrototypeOf(value));

function isJson(value: unknown, depth: number): boolean {
  if (depth > MAX_DEPTH) return false;
  if (value === null || typeof value === "string" || typeof value === "boolean") return true;
  if (typeof value === "number") return Number.isFinite(value);
  if (Array.isArray(value)) return value.every((item) => isJson(item, depth + 1));
  // Object.keys reads own keys only, so a "__proto__" key parsed from JSON is checked as data.
  return isPlainObject(value) && Object.keys(value).every((key) => isJson(value[key], depth + 1));
}

/**
 * A deep, frozen copy. JSON text round-trips own keys as data ("__proto__" included, never a
 * prototype), and detaches the stored answer from an object a library caller may change later.
 */
function frozenCopy(value: JsonObject): JsonObject {
  const freeze = (item: unknown): void => {
    if (typeof item !== "object" || item === null) return;
    Object.freeze(item);
    for (const key of Object.keys(item)) freeze((item as Record<string, unknown>)[key]);
  };
  const copy = JSON.parse(JSON.stringify(value)) as JsonObject;
  freeze(copy);
  return copy;
}

export const ScriptedCitation = z
  .custom<JsonObject>((value) => isPlainObject(value) && isJson(value, 0), {
    message: `a citation is a JSON object (any fields, nested at most ${MAX_DEPTH} deep)`,
  })
  .transform(frozenCopy);

/**
 * Scripted citations where the fake keeps citations. Its own code never reads a citation's
 * fields (it serialises them, counts them, or drops them all), so any object stands in for
 * the built-in shape that the corpus gives.
 */
export const asStoredCitations = (citations: readonly JsonObject[]): readonly Citation[] =>
  citations as unknown as readonly Citation[];

/** A citation read back from a result the fake stored itself: the built-in shape or a scripted object, passed through as written. */
export const StoredCitation = z.custom<Citation>(
  (value) => typeof value === "object" && value !== null && !Array.isArray(value),
);
