/**
 * A control endpoint's body: JSON whatever its Content-Type (curl's default is welcome) and up to
 * 32 MiB, room for a whole conversation in one import.
 */
import type { AppContext, FakeRequest } from "../context.ts";
import { readControlBody } from "../http/read-body.ts";

/** Room for a conversation of thousands of messages in one import, whatever the API's own cap. */
const CONTROL_BODY_BYTES = 32 * 1024 * 1024;

/** A control endpoint's JSON body: any Content-Type, malformed JSON a 400. */
export function controlBody(ctx: AppContext, req: FakeRequest): Promise<unknown> {
  return readControlBody(req, Math.max(ctx.options.maxBodyBytes, CONTROL_BODY_BYTES));
}
