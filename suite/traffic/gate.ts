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

export interface PartyVerdict {
  /** fail: a requirement failed; pass: some were observed and none failed; not_observed: none was observed. */
  result: "pass" | "fail" | "not_observed";
  pass: number;
  fail: number;
  warn: number;
  not_observed: number;
}

export const isClientRequirement = (requirement: { id: string }) => requirement.id.startsWith("CLIENT-");

export function partyVerdict(requirements: readonly RequirementReport[]): PartyVerdict {
  const count = (status: string) => requirements.filter((r) => r.status === status).length;
  const verdict = { pass: count("pass"), fail: count("fail"), warn: count("warn"), not_observed: count("not_observed") };
  const result = verdict.fail > 0 ? "fail" : verdict.pass + verdict.warn > 0 ? "pass" : "not_observed";
  return { result, ...verdict };
}

/** Whether the gated verdicts fail the run. */
export function gateFails(gate: Gate, service: PartyVerdict, client: PartyVerdict): boolean {
  if (gate === "service") return service.result === "fail";
  if (gate === "client") return client.result === "fail";
  return service.result === "fail" || client.result === "fail";
}
