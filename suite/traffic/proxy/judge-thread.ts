/**
 * The proxy's side of its judging thread (judge-worker.ts): exchanges go in as they finish,
 * violations come back as they are found, and `finish` returns the report.
 */
import { Worker } from "node:worker_threads";
import type { ObservedExchange } from "../exchange.ts";
import type { TrafficReport } from "../judge.ts";
import type { TrafficViolation } from "../recorder.ts";
import type { JudgeWorkerData, ToJudge } from "./judge-worker.ts";

type FromJudge =
  | { type: "violations"; violations: TrafficViolation[] }
  | { type: "error"; sequence: number; message: string }
  | ({ type: "finished" } & Finished);

export interface Finished {
  report: TrafficReport;
  fixturesWritten: number | undefined;
  /** HAR entries written, when a HAR file was asked for. */
  harWritten: number | undefined;
}

// The worker's file is this one's sibling, as TypeScript in the repository (run through tsx,
// which a thread must load for itself) and as JavaScript in the package.
const FROM_SOURCE = import.meta.url.endsWith(".ts");
const WORKER = new URL(`./judge-worker${FROM_SOURCE ? ".ts" : ".js"}`, import.meta.url);

export class JudgeThread {
  private readonly worker: Worker;
  private finished: ((finished: Finished) => void) | undefined;

  constructor(
    data: JudgeWorkerData,
    onViolation: (violation: TrafficViolation) => void,
    onError: (text: string) => void,
  ) {
    this.worker = FROM_SOURCE
      ? new Worker(
          `import(${JSON.stringify(import.meta.resolve("tsx/esm/api"))}).then((tsx) => { tsx.register(); return import(${JSON.stringify(WORKER.href)}); })`,
          { eval: true, workerData: data },
        )
      : new Worker(WORKER, { workerData: data });
    this.worker.on("message", (message: FromJudge) => {
      if (message.type === "violations") message.violations.forEach(onViolation);
      else if (message.type === "error") onError(`could not judge exchange #${message.sequence}: ${message.message}`);
      else
        this.finished?.({
          report: message.report,
          fixturesWritten: message.fixturesWritten,
          harWritten: message.harWritten,
        });
    });
    this.worker.on("error", (error) => onError(`the judging thread failed: ${error.stack ?? error.message}`));
  }

  observe(exchange: ObservedExchange): void {
    this.worker.postMessage({ type: "exchange", exchange } satisfies ToJudge);
  }

  /** Every exchange sent so far is judged before the report (messages keep their order). */
  async finish(fixturesDir: string | undefined): Promise<Finished> {
    const done = new Promise<Finished>((resolve) => (this.finished = resolve));
    this.worker.postMessage({ type: "finish", fixturesDir } satisfies ToJudge);
    const result = await done;
    await this.worker.terminate();
    return result;
  }
}
