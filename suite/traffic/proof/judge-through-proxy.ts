/**
 * One proof run: a fake (conforming, a variant or a mutant) behind the proxy, traffic sent
 * through it, the judge's report and the exchanges it saw (to judge again from HAR).
 */
import { createFakeServer, type FakeServerOptions } from "../../../fake-server/index.ts";
import { Redactor } from "../../http/redact.ts";
import type { RequirementReport } from "../../report/report-types.ts";
import type { ObservedExchange } from "../exchange.ts";
import { createTrafficJudge, type TrafficReport } from "../judge.ts";
import { startProxy } from "../proxy/server.ts";
import { startCompressingGateway, type GatewayCoding } from "./compressing-gateway.ts";

export interface ProofRun {
  report: TrafficReport;
  exchanges: ObservedExchange[];
  /** Statuses of the requirements that were broken: id → fail or warn. */
  broken: Record<string, string>;
}

/** Wide windows for the client rules: the verdicts must not depend on how fast this machine is. */
export const WIDE_CLIENT_RULES = { duplicateWindowMs: 600_000, stormWindowMs: 600_000 };

export const clientFailures = (run: ProofRun) =>
  Object.keys(run.broken)
    .filter((id) => id.startsWith("CLIENT-"))
    .sort();
export const serviceFailures = (run: ProofRun) =>
  Object.keys(run.broken)
    .filter((id) => !id.startsWith("CLIENT-"))
    .sort();

/**
 * Runs `count` at a time, the next as soon as one ends (a slow run holds up no batch): proofs of
 * dozens of targets stay within a minute on two cores. Results in the order of `items`.
 */
export async function inBatches<T, R>(items: readonly T[], count: number, run: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array<R>(items.length);
  let next = 0;
  const lane = async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await run(items[index] as T);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(count, items.length)) }, lane));
  return results;
}

/** How the judge left a requirement: its status, and why when it says (an undecided verdict's reason). */
export function verdictOf(run: ProofRun, id: string): string {
  const judged = run.report.requirements.find((r) => r.id === id);
  return `${judged?.status}${judged?.reason === undefined ? "" : ` (${judged.reason})`}`;
}

export const brokenOf = (report: { readonly requirements: readonly RequirementReport[] }): Record<string, string> =>
  Object.fromEntries(
    report.requirements.filter((r) => r.status === "fail" || r.status === "warn").map((r) => [r.id, r.status]),
  );

export interface ProofSetting {
  /** A compressing gateway stands between the proxy and the fake. */
  compressedBy?: GatewayCoding;
  /** The judge's --settle-ms (default: the suite's). */
  settleMs?: number;
}

export async function judgeThroughProxy(
  options: FakeServerOptions,
  drive: (baseUrl: string) => Promise<void>,
  { compressedBy, settleMs }: ProofSetting = {},
): Promise<ProofRun> {
  const fake = await createFakeServer({ port: 0, ...options });
  const gateway = compressedBy === undefined ? undefined : await startCompressingGateway(fake.url, compressedBy);
  const judge = createTrafficJudge({
    target: "proof",
    redactor: new Redactor([]),
    ...(settleMs === undefined ? {} : { settleMs }),
  });
  const exchanges: ObservedExchange[] = [];
  const proxy = await startProxy({
    upstream: gateway?.url ?? fake.url,
    host: "127.0.0.1",
    port: 0,
    onExchange: (exchange) => {
      exchanges.push(exchange);
      judge.observe(exchange);
    },
  });
  try {
    // The fake's base path (a variant's) is part of the upstream URL, not of the client's.
    await drive(proxy.url);
  } finally {
    await proxy.close(2_000);
    await gateway?.close();
    await fake.close();
  }
  await new Promise((resolve) => setImmediate(resolve));
  const report = judge.report();
  return { report, exchanges, broken: brokenOf(report) };
}
