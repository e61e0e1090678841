/**
 * The extra-fields variant: fields the spec does not name, added to every JSON object the fake
 * writes, bodies and event payloads alike, for clients that must ignore them.
 */
import type { Behavior } from "../behavior/behavior.ts";

/** What the extra-fields variant adds to every object: unknown fields a client must ignore. */
const EXTRA = Object.freeze({ x_fake_extension: "ignore me", x_fake_version: 2 });

function decorate(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(decorate);
  if (typeof value !== "object" || value === null) return value;
  // Own enumerable entries only, defined as data: a "__proto__" key stays a key.
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    Object.defineProperty(out, key, { value: decorate(item), enumerable: true, writable: true, configurable: true });
  }
  return { ...EXTRA, ...out };
}

/**
 * A JSON body or event payload as the behavior writes it: unchanged, or (extra-fields
 * variant) with fields the spec does not name added to every object at every level.
 */
export function withExtraFields<T>(behavior: Pick<Behavior, "extraFields">, value: T): T {
  return behavior.extraFields ? (decorate(value) as T) : value;
}

/** The same for a body that is already JSON text (a stored result replayed): unchanged unless the variant is on. */
export function withExtraFieldsText(behavior: Pick<Behavior, "extraFields">, text: string): string {
  return behavior.extraFields ? JSON.stringify(decorate(JSON.parse(text))) : text;
}
