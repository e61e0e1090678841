/**
 * One cheap request before any check: can the harness reach the target at all?
 * Any HTTP answer is enough, even one whose body then breaks a limit (that is for the checks
 * to judge); refused, DNS, TLS or no answer at all means the run cannot start.
 */

import { randomUUID } from "node:crypto";
import { TargetError } from "../harness/errors.ts";
import type { ServiceClient } from "../harness/types.ts";

export type Preflight = { ok: true; status: number } | { ok: false; reason: string };

export async function preflight(client: ServiceClient, describe: string): Promise<Preflight> {
  try {
    // Listing a conversation that cannot exist reads nothing and changes nothing.
    const response = await client.list(randomUUID());
    return { ok: true, status: response.status };
  } catch (error) {
    const answered = error instanceof TargetError ? error.transcript?.response : undefined;
    if (answered !== undefined) return { ok: true, status: answered.status };
    const message = error instanceof Error ? error.message : String(error);
    return { ok: false, reason: `the target ${describe} did not answer a first request: ${message}` };
  }
}
