/**
 * Traffic shows two parties: the service (every requirement but CLIENT-*) and the client
 * (CLIENT-*). Each gets a verdict of its own; `--gate` picks which of them sets the run's result
 * and exit code, so that an operator gating a service is not failed by a careless client, and a
 * client team can gate on its own rules.
 */
import type { RequirementReport } from "../report/report-types.ts";

export const GATES = ["service", "client", "both"] as const;
export type Gate = (typeof GATES)[number];

/** The --gate flag, or what is wrong with it. */
export function parseGate(value: string | undefined): Gate | { error: string } {
  const gate = GATES.find((name) => name === (value ?? "service"));
  return gate ?? { error: `--gate must be service, client or both, not ${value}` };
}

/** One party's requirements by status. */
export interface PartyCounts {
  pass: number;
  fail: number;
  warn: number;
  /** Requirements with a verdict held back for listing lag that nothing decided (none failed). */
  inconclusive: number;
  not_observed: number;
}

export interface PartyVerdict extends PartyCounts {
  /**
   * fail: a requirement failed; undecided: none failed, but one has a verdict nothing decided;
   * pass: some were observed and none failed; not_observed: none was observed.
   */
  result: "pass" | "fail" | "undecided" | "not_observed";
}

export const isClientRequirement = (requirement: { id: string }) => requirement.id.startsWith("CLIENT-");

export function partyVerdict(requirements: readonly RequirementReport[]): PartyVerdict {
  const count = (status: string) => requirements.filter((r) => r.status === status).length;
  const verdict = {
    pass: count("pass"),
    fail: count("fail"),
    warn: count("warn"),
    inconclusive: count("inconclusive"),
    not_observed: count("not_observed"),
  };
  const result =
    verdict.fail > 0
      ? "fail"
      : verdict.inconclusive > 0
        ? "undecided"
        : verdict.pass + verdict.warn > 0
          ? "pass"
          : "not_observed";
  return { result, ...verdict };
}

/** A party's counts without its result, as conformance.json's `counts` gives them. */
export const countsOf = ({ pass, fail, warn, inconclusive, not_observed }: PartyVerdict): PartyCounts => ({
  pass,
  fail,
  warn,
  inconclusive,
  not_observed,
});

const gated = (gate: Gate, party: "service" | "client") => gate === party || gate === "both";

/** Whether the gated verdicts fail the run. */
export function gateFails(gate: Gate, service: PartyVerdict, client: PartyVerdict): boolean {
  return (gated(gate, "service") && service.result === "fail") || (gated(gate, "client") && client.result === "fail");
}

/** Whether a gated verdict is undecided (and none failed): the run is incomplete, never a pass. */
export function gateUndecided(gate: Gate, service: PartyVerdict, client: PartyVerdict): boolean {
  return (
    (gated(gate, "service") && service.result === "undecided") ||
    (gated(gate, "client") && client.result === "undecided")
  );
}

/** Whether `requirement` belongs to a gated party. */
export const isGated = (gate: Gate, requirement: { id: string }) =>
  gated(gate, isClientRequirement(requirement) ? "client" : "service");
