/**
 * Benchmark worker: the conformance proxy in front of `upstream`, judging every exchange in its
 * own thread as `agent-conformance proxy` does, in a process of its own.
 */
import { DEFAULTS } from "../../../suite/harness/config.ts";
import { JudgeThread } from "../../../suite/traffic/proxy/judge-thread.ts";
import { startProxy } from "../../../suite/traffic/proxy/server.ts";
import { serveCalls } from "../worker.ts";

serveCalls({
  async start({ upstream, judging = true }: { upstream: string; judging?: boolean }) {
    const judge = judging ? new JudgeThread({ target: "bench", strict: false, settleMs: DEFAULTS.settleMs, gate: "service", recordFixtures: false }, () => undefined, (text) => console.error(text)) : undefined;
    const proxy = await startProxy({ upstream, host: "127.0.0.1", port: 0, onExchange: (exchange) => judge?.observe(exchange) });
    return { url: proxy.url };
  },
});
