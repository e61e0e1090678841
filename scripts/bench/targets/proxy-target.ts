/**
 * Benchmark worker: the conformance proxy in front of `upstream`, judging every exchange in its
 * own thread as `agent-conformance proxy` does, in a process of its own; with `harFile`, also
 * writing the HAR as `--har` does. `heap` is the forwarding thread's heap after a full
 * collection (the worker runs with --expose-gc for it).
 */
import { closeSync } from "node:fs";
import { DEFAULTS } from "../../../suite/runner/config.ts";
import { openHarFile } from "../../../suite/traffic/har-file.ts";
import { JudgeThread } from "../../../suite/traffic/proxy/judge-thread.ts";
import { startProxy, type RunningProxy } from "../../../suite/traffic/proxy/server.ts";
import { serveCalls } from "../worker.ts";

let judge: JudgeThread | undefined;
let proxy: RunningProxy | undefined;
let harFd: number | undefined;

serveCalls({
  async start({ upstream, judging = true, harFile }: { upstream: string; judging?: boolean; harFile?: string }) {
    harFd = harFile === undefined ? undefined : openHarFile(harFile);
    const running = judging
      ? new JudgeThread(
          {
            target: "bench",
            strict: false,
            settleMs: DEFAULTS.settleMs,
            gate: "service",
            recordFixtures: false,
            ...(harFd === undefined ? {} : { harFd }),
          },
          () => undefined,
          (text) => console.error(text),
        )
      : undefined;
    judge = running;
    proxy = await startProxy({
      upstream,
      host: "127.0.0.1",
      port: 0,
      onExchange: (exchange) => running?.observe(exchange),
    });
    return { url: proxy.url };
  },
  heap() {
    const collect = (globalThis as { gc?: () => void }).gc;
    if (!collect) throw new Error("run with --expose-gc");
    collect();
    const { heapUsed, rss } = process.memoryUsage();
    return { heapUsedBytes: heapUsed, rssBytes: rss };
  },
  /** Stops as the command does on SIGTERM: the judge finishes and the HAR file is closed. */
  async finish() {
    await proxy?.close(2_000);
    const finished = await judge?.finish(undefined);
    if (harFd !== undefined) closeSync(harFd);
    return { harWritten: finished?.harWritten, judged: finished?.report.traffic.exchanges.judged };
  },
});
