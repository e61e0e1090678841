/**
 * What a client rule is to the observer: the requirement it judges, when (as a request arrives, or
 * once a create's body is read) and what it sees of the key's recent requests. The rules themselves
 * are in rules/.
 */
import type { RequirementId } from "../../requirements/catalog.ts";
import type { ClientRuleOptions } from "./options.ts";
import type { ObservedRequest } from "./observed-request.ts";

/** A broken rule: what to tell the client developer, and the requests that show it. */
export interface Finding {
  readonly message: string;
  /** Earlier requests the offender is judged against first, the offender last. */
  readonly requests: readonly ObservedRequest[];
}

/**
 * Who answers the client whose requests are judged: the fake itself, or the real service when
 * the traffic judge replays recorded traffic. Messages say what only the fake is known to do
 * (serve a stream anyway, say) only when it is the fake.
 */
export type AnsweringParty = "fake" | "service";

/**
 * What a rule sees of the API key's recent creates (bounded; see historyPerKey): only the
 * requests it can match, found through the bucket's indexes, so no rule scans the history.
 * Both lists may hold the judged request itself; rules skip it.
 */
export interface RuleInput {
  readonly request: ObservedRequest;
  /** The creates sent under the request's agent and Idempotency-Key, oldest first. */
  readonly sameOperationKey: readonly ObservedRequest[];
  /** The streams that started and then failed or were cut, oldest first. */
  readonly failedStreams: readonly ObservedRequest[];
  readonly options: ClientRuleOptions;
  readonly party: AnsweringParty;
}

/**
 * One client rule of the spec. `arrival` rules judge a request from its headers as soon as
 * it comes in, whatever the fake answers; `payload` rules judge a create once its body has
 * been read and validated.
 */
export interface ClientRule {
  /** The CLIENT-n requirement of requirements/catalog.ts. */
  readonly requirement: RequirementId;
  /** A few words for the summary line. */
  readonly title: string;
  readonly stage: "arrival" | "payload";
  judge(input: RuleInput): Finding | undefined;
}
