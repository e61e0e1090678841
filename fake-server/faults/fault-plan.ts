/**
 * The fault plan of a request: the delays, injected status, error event or dropped connection it
 * asked for in `X-Fake-Fault` syntax (the header, a fault rule, `--fault`), parsed strictly, a 400
 * naming a bad item. LLM-like pacing starts from a plan too.
 */
import type { FakeErrorCode } from "../../schemas/index.ts";
import type { Behavior } from "../behavior/behavior.ts";
import { ApiError } from "../http/api-error.ts";

export const FAULT_HEADER = "x-fake-fault";

/** What one request asked the fake to do wrong, from its `X-Fake-Fault` header. */
export interface FaultPlan {
  /** Pause before the first event (stream) or before the response (other operations). */
  readonly firstEventDelayMs: number;
  /** Pause between deltas, replacing the server's default. */
  readonly deltaDelayMs: number | undefined;
  /** Send an `error` event (agent_failed) after this many deltas. */
  readonly errorAfter: number | undefined;
  /** Destroy the connection after this many deltas. */
  readonly dropAfter: number | undefined;
  /** Answer this status with a JSON error body instead of serving the request. */
  readonly status: InjectedStatus | undefined;
  readonly retryAfterSeconds: number | undefined;
  /** A plain create also waits out the deltas its stream would pause between (LLM pacing). */
  readonly paced: boolean;
}

type InjectedStatus = 429 | 500 | 503;

export const NO_FAULTS: FaultPlan = Object.freeze({
  firstEventDelayMs: 0,
  deltaDelayMs: undefined,
  errorAfter: undefined,
  dropAfter: undefined,
  status: undefined,
  retryAfterSeconds: undefined,
  paced: false,
});

/**
 * The plan of a create that asks for no fault: none, or the behavior's LLM-like pacing.
 * Built once per app; a header's items replace the pacing's one by one.
 */
export function baseFaultPlan(behavior: Pick<Behavior, "pacing">): FaultPlan {
  const { pacing } = behavior;
  if (pacing === null) return NO_FAULTS;
  return Object.freeze({
    ...NO_FAULTS,
    firstEventDelayMs: pacing.firstEventMs,
    deltaDelayMs: pacing.deltaDelayMs,
    paced: true,
  });
}

const MAX_DELAY_MS = 60_000;
const MAX_DELTA_COUNT = 10_000;
const MAX_RETRY_AFTER_S = 86_400;

const STATUS_CODES: ReadonlyMap<number, FakeErrorCode> = new Map([
  [429, "rate_limited"],
  [500, "internal_error"],
  [503, "service_unavailable"],
]);

function invalid(message: string): ApiError {
  return new ApiError(400, "invalid_request", `X-Fake-Fault: ${message}`);
}

function integer(item: string, value: string, max: number): number {
  const parsed = /^\d+$/.test(value) ? Number(value) : Number.NaN;
  if (!(parsed <= max)) throw invalid(`"${item}" needs a whole number from 0 to ${max}`);
  return parsed;
}

/**
 * Parses the comma-separated `X-Fake-Fault` header; its items replace those of `base`. Any
 * malformed, unknown or repeated item is a 400 naming it; with fault injection disabled,
 * the header itself is a 400.
 */
export function parseFaultHeader(
  header: string | string[] | undefined,
  enabled: boolean,
  base: FaultPlan = NO_FAULTS,
): FaultPlan {
  if (header === undefined) return base;
  if (!enabled) {
    throw new ApiError(
      400,
      "invalid_request",
      "fault injection is disabled on this server; remove the X-Fake-Fault header",
    );
  }
  const items = (Array.isArray(header) ? header.join(",") : header).split(",").map((item) => item.trim());
  const plan: { -readonly [K in keyof FaultPlan]: FaultPlan[K] } = { ...base };
  const seen = new Set<string>();
  for (const item of items) {
    const equals = item.indexOf("=");
    const name = equals === -1 ? item : item.slice(0, equals).trim();
    const value = equals === -1 ? "" : item.slice(equals + 1).trim();
    if (equals === -1 || name === "") {
      throw invalid(`"${item}" is not of the form name=value (e.g. "delta-delay=50,error-after=2")`);
    }
    if (seen.has(name)) throw invalid(`"${name}" is given more than once`);
    seen.add(name);
    switch (name) {
      case "first-event-delay":
        plan.firstEventDelayMs = integer(item, value, MAX_DELAY_MS);
        break;
      case "delta-delay":
        plan.deltaDelayMs = integer(item, value, MAX_DELAY_MS);
        break;
      case "error-after":
        plan.errorAfter = integer(item, value, MAX_DELTA_COUNT);
        break;
      case "drop-after":
        plan.dropAfter = integer(item, value, MAX_DELTA_COUNT);
        break;
      case "status": {
        const status = Number(value);
        if (!STATUS_CODES.has(status) || !/^\d+$/.test(value))
          throw invalid(`"${item}": status must be 429, 500 or 503`);
        plan.status = status as InjectedStatus;
        break;
      }
      case "retry-after":
        plan.retryAfterSeconds = integer(item, value, MAX_RETRY_AFTER_S);
        break;
      default:
        throw invalid(
          `unknown item "${name}"; known: first-event-delay, delta-delay, error-after, drop-after, status, retry-after`,
        );
    }
  }
  if (plan.retryAfterSeconds !== undefined && plan.status === undefined) {
    throw invalid(`"retry-after" only applies together with "status"`);
  }
  return plan;
}

/** The injected status failure of a plan, if it asks for one. */
export function injectedStatusError(plan: FaultPlan): ApiError | undefined {
  if (plan.status === undefined) return undefined;
  const code = STATUS_CODES.get(plan.status) ?? "internal_error";
  const retryAfter = plan.retryAfterSeconds ?? (plan.status === 500 ? undefined : 1);
  const headers: Record<string, string> = retryAfter === undefined ? {} : { "Retry-After": String(retryAfter) };
  return new ApiError(
    plan.status,
    code,
    `status ${plan.status} injected on purpose (X-Fake-Fault, a fault rule or --fault); nothing was changed`,
    headers,
  );
}
