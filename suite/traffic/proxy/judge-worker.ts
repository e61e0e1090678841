/**
 * The proxy's judging, in a worker thread of its own: the thread that forwards bytes never
 * spends a moment on a verdict, however many streams end at once.
 */
import { parentPort, workerData } from "node:worker_threads";
import { Redactor } from "../../http/redact.ts";
import type { ObservedExchange } from "../exchange.ts";
import type { Gate } from "../gate.ts";
import { HarFile } from "../har-file.ts";
import { createTrafficJudge } from "../judge.ts";
import { FixtureRecorder } from "./fixture-recorder.ts";

export interface JudgeWorkerData {
  target: string;
  strict: boolean;
  settleMs: number;
  gate: Gate;
  recordFixtures: boolean;
  /** A file descriptor open for writing (openHarFile): each exchange goes to it as HAR as it is judged. */
  harFd?: number;
}

export type ToJudge =
  { type: "exchange"; exchange: ObservedExchange } | { type: "finish"; fixturesDir: string | undefined };

const port = parentPort;
if (port === null) throw new Error("judge-worker.ts runs as a worker thread");
const options = workerData as JudgeWorkerData;
const judge = createTrafficJudge({
  target: options.target,
  redactor: new Redactor([]),
  strict: options.strict,
  settleMs: options.settleMs,
  gate: options.gate,
  source: "proxy",
});
const fixtures = options.recordFixtures ? new FixtureRecorder() : undefined;
const har = options.harFd === undefined ? undefined : new HarFile(options.harFd);

port.on("message", (message: ToJudge) => {
  if (message.type === "exchange") {
    try {
      // In the order the judge sees them, so the file judged offline is taken in the same order.
      har?.add(message.exchange);
    } catch (error) {
      port.postMessage({
        type: "error",
        sequence: message.exchange.sequence,
        message: `the HAR file: ${error instanceof Error ? error.message : String(error)}`,
      });
    }
    try {
      const violations = judge.observe(message.exchange);
      fixtures?.observe(message.exchange);
      if (violations.length > 0) port.postMessage({ type: "violations", violations });
    } catch (error) {
      port.postMessage({
        type: "error",
        sequence: message.exchange.sequence,
        message: error instanceof Error ? (error.stack ?? error.message) : String(error),
      });
    }
    return;
  }
  void (async () => {
    const late = judge.finish();
    if (late.length > 0) port.postMessage({ type: "violations", violations: late });
    const fixturesWritten =
      fixtures !== undefined && message.fixturesDir !== undefined
        ? await fixtures.write(message.fixturesDir)
        : undefined;
    har?.end();
    port.postMessage({ type: "finished", report: judge.report(), fixturesWritten, harWritten: har?.written });
  })();
});
