/**
 * Error bodies "with code X" in whichever shape a service chose, for the contract where the spec
 * names a code.
 */
import { z } from "zod";

/**
 * The error body shapes the suite reads a code from (schemas/errors.ts, ERR-1), with the code
 * pinned: what a body "with code X" is, whichever shape the service chose. The contract uses
 * it where the spec names a code (the delete's 404 `conversation_not_found`).
 */
export function errorBodyWithCode(code: string): z.ZodType {
  const Code = z.literal(code);
  const escaped = code.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  return z.union([
    z.looseObject({ error: z.looseObject({ code: Code }) }),
    z.looseObject({ code: Code }),
    z.looseObject({ detail: z.looseObject({ code: Code }) }),
    z.looseObject({ errors: z.tuple([z.looseObject({ code: Code })], z.unknown()) }),
    // An RFC 9457 problem whose `type` ends in the code, as errorCode() reads it.
    z.looseObject({ type: z.string().regex(new RegExp(`(^|[/#:])${escaped}[/#:]*$`)) }),
  ]);
}
