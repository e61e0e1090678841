/**
 * Benchmark worker: how long `createFakeServer` takes until its first request is answered,
 * round after round in one process (the modules are loaded once, as in a test run that
 * starts a fake per test). The first round, with a cold JIT, is reported apart.
 */
import { createFakeServer } from "../../../fake-server/index.ts";
import { serveCalls } from "../worker.ts";

async function oneStart(): Promise<number> {
  const started = performance.now();
  const fake = await createFakeServer({ port: 0 });
  const response = await fetch(`${fake.url}/v1/agents/agent-a/responses`, {
    method: "POST",
    headers: {
      authorization: "Bearer sk-fake-a",
      "content-type": "application/json",
      "idempotency-key": crypto.randomUUID(),
    },
    body: JSON.stringify({ message: "How do reminders work?" }),
  });
  await response.text();
  const elapsed = performance.now() - started;
  await fake.close();
  if (response.status !== 200) throw new Error(`the first create answered ${response.status}`);
  return elapsed;
}

serveCalls({
  async starts({ rounds }: { rounds: number }) {
    const times: number[] = [];
    for (let i = 0; i < rounds; i++) times.push(await oneStart());
    return times;
  },
});
