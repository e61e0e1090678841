/**
 * Fault rules (`POST /__fake/faults`): the requests of a session that match a rule's agent,
 * operation or message get its fault as if their `X-Fake-Fault` had asked for it, for an app that
 * cannot add headers.
 */
import { z } from "zod";
import { NO_FAULTS, parseFaultHeader, type FaultPlan } from "./fault-plan.ts";
import { ApiError } from "../http/api-error.ts";
import { parseControlBody } from "../rules/control-body.ts";
import { idSequence, RuleBook, type RuleState } from "../rules/rule-book.ts";

export type RuleOperation = "create" | "stream" | "list" | "delete";

const FaultRuleBody = z.strictObject({
  match: z
    .strictObject({
      agent: z.string().min(1).optional(),
      operation: z.enum(["create", "stream", "list", "delete"]).optional(),
      message_contains: z.string().min(1).optional(),
    })
    .default({}),
  fault: z.string().min(1),
  times: z.int().min(0).max(1_000_000).default(1),
});

/** A fault rule (`POST /__fake/faults`): requests it matches get its fault as if they sent it in X-Fake-Fault. */
export interface FaultRule extends RuleState {
  readonly match: { readonly agent?: string; readonly operation?: RuleOperation; readonly message_contains?: string };
  /** Checked when the rule was added; parsed per request over that request's base plan. */
  readonly fault: string;
}

/** What a request offers for matching; `message` only for creates, once their body is read. */
export interface FaultTarget {
  readonly agent: string;
  readonly operation: RuleOperation;
  readonly message: string | undefined;
}

/** A fault string as the header takes it; the header's 400 names the rule's field instead. */
export function parseFaultSpec(spec: string, base: FaultPlan, where: string): FaultPlan {
  try {
    return parseFaultHeader(spec, true, base);
  } catch (error) {
    if (error instanceof ApiError)
      throw new ApiError(400, "invalid_request", error.message.replace(/^X-Fake-Fault:/, `${where}:`));
    throw error;
  }
}

const nextFaultId = idSequence("fault");

export class FaultRules extends RuleBook<FaultRule> {
  constructor() {
    super(nextFaultId);
  }

  /** Adds the rule a request body describes; a 400 naming the field when it does not describe one. */
  addFromBody(body: unknown): FaultRule {
    const parsed = parseControlBody(FaultRuleBody, body, "fault rule");
    parseFaultSpec(parsed.fault, NO_FAULTS, "fault");
    return this.add((id) => ({
      id,
      match: parsed.match,
      fault: parsed.fault,
      times: parsed.times,
      remaining: parsed.times === 0 ? null : parsed.times,
      applied: 0,
    }));
  }

  /** The oldest rule matching the request, counted down; undefined when none does. */
  planFor(target: FaultTarget): FaultRule | undefined {
    if (this.size === 0) return undefined;
    return this.take(
      ({ match }) =>
        (match.agent === undefined || match.agent === target.agent) &&
        (match.operation === undefined || match.operation === target.operation) &&
        (match.message_contains === undefined ||
          (target.message !== undefined && target.message.includes(match.message_contains))),
    );
  }
}

/** A rule as the control endpoints show it. */
export function faultRuleView(rule: FaultRule) {
  return {
    id: rule.id,
    match: rule.match,
    fault: rule.fault,
    times: rule.times,
    remaining: rule.remaining,
    applied: rule.applied,
  };
}
