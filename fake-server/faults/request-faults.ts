/**
 * Which faults a request gets: its own `X-Fake-Fault`, else the oldest matching fault rule of its
 * session, else `--fault`; each item replaces the one of the plan the behavior starts from.
 */
import type { IncomingHttpHeaders } from "node:http";
import { FAULT_HEADER, parseFaultHeader, type FaultPlan } from "./fault-plan.ts";
import type { FaultRules, FaultTarget } from "./fault-rules.ts";

/** What finding a request's faults uses: the session's fault rules, and the fault options (`faults`, `fault`). */
export interface FaultContext {
  readonly faultRules: FaultRules;
  readonly options: { readonly faults: boolean; readonly fault: string | undefined };
}

/** The request's own X-Fake-Fault, parsed over `base`; undefined when it sent none. */
export function headerFaults(
  ctx: Pick<FaultContext, "options">,
  req: { readonly headers: IncomingHttpHeaders },
  base: FaultPlan,
): FaultPlan | undefined {
  const header = req.headers[FAULT_HEADER];
  return header === undefined ? undefined : parseFaultHeader(header, ctx.options.faults, base);
}

/**
 * The faults of a request that sent no X-Fake-Fault: the oldest matching fault rule of its
 * session (counted down, and its id noted on the request for the request log), else
 * `--fault`, else `base`. Like the header's, their items replace those of `base` (the pacing
 * of creates) one by one.
 */
export function ruleFaults(
  ctx: FaultContext,
  req: { faultRule?: string },
  target: FaultTarget,
  base: FaultPlan,
): FaultPlan {
  const rule = ctx.faultRules.planFor(target);
  if (rule !== undefined) {
    req.faultRule = rule.id;
    return parseFaultHeader(rule.fault, true, base);
  }
  return ctx.options.fault === undefined ? base : parseFaultHeader(ctx.options.fault, true, base);
}
