/**
 * What the model needs to know of an observed create's body beyond its payload (CreateOp's
 * openShape and optionalFields): the interaction property knows it from the body it generated,
 * the traffic judge reads it from the body it saw.
 * - An open shape is one the spec leaves a service free to refuse, after which the service is
 *   held to its choice: metadata that is not a flat object of strings (nested objects, arrays,
 *   numbers, nulls; RESP-6 names the flat one), and a message of 2,048 characters or more (the
 *   length from which the property takes a message as one a service may refuse).
 * - Optional fields: `external_reference` or `metadata` present, whose refusal breaks RESP-6.
 */
import { OPEN_SHAPES } from "../interactions/space.ts";

const LONG_MESSAGE = 2_048;

function metadataShape(metadata: unknown): string | undefined {
  if (metadata === null || typeof metadata !== "object" || Array.isArray(metadata)) return undefined;
  const values = Object.values(metadata);
  if (values.some((v) => v !== null && typeof v === "object" && !Array.isArray(v))) return "metadata:nested";
  if (values.some(Array.isArray)) return "metadata:arrays";
  if (values.some((v) => typeof v === "number")) return "metadata:numbers";
  if (values.some((v) => v === null)) return "metadata:nulls";
  return undefined;
}

/** The open shape of a create's body, as the model names it; undefined when every service must accept it. */
export function openShapeOf(body: unknown): string | undefined {
  if (body === null || typeof body !== "object") return undefined;
  const { message, metadata } = body as { message?: unknown; metadata?: unknown };
  const shape =
    typeof message === "string" && message.length >= LONG_MESSAGE ? "message:long" : metadataShape(metadata);
  return shape !== undefined && OPEN_SHAPES.has(shape) ? shape : undefined;
}

/** Whether the body carries `external_reference` or `metadata`. */
export const hasOptionalFields = (body: unknown): boolean =>
  body !== null && typeof body === "object" && ("external_reference" in body || "metadata" in body);
