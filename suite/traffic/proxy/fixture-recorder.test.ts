import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, onTestFinished, test } from "vitest";
import { createFakeServer } from "../../../fake-server/index.ts";
import { judgeThroughProxy } from "../proof/judge-through-proxy.ts";
import { FixtureRecorder } from "./fixture-recorder.ts";

const headers = { authorization: "Bearer sk-fake-a", "content-type": "application/json" };

test("recorded conversations import into a fresh fake and list the same messages; deleted ones are not written", async () => {
  const dir = await mkdtemp(join(tmpdir(), "fixtures-"));
  onTestFinished(() => rm(dir, { recursive: true, force: true }));
  let kept = "";
  const listed: unknown[] = [];
  const run = await judgeThroughProxy({}, async (baseUrl) => {
    const api = `${baseUrl}/v1/agents/agent-a`;
    const post = async (path: string, body: unknown, extra: Record<string, string> = {}) =>
      (
        await fetch(`${api}${path}`, {
          method: "POST",
          headers: { ...headers, "idempotency-key": crypto.randomUUID(), ...extra },
          body: JSON.stringify(body),
        })
      ).text();
    kept = (JSON.parse(await post("/responses", { message: "How do reminders work?" })) as { conversation_id: string })
      .conversation_id;
    await post(
      "/responses/stream",
      { message: "And exports?", conversation_id: kept },
      { accept: "text/event-stream" },
    );
    const gone = (JSON.parse(await post("/responses", { message: "Forget this" })) as { conversation_id: string })
      .conversation_id;
    await fetch(`${api}/conversations/${gone}`, { method: "DELETE", headers });
    const page = (await (await fetch(`${api}/conversations/${kept}/messages`, { headers })).json()) as {
      items: unknown[];
    };
    listed.push(...page.items);
  });
  const recorder = new FixtureRecorder();
  for (const exchange of run.exchanges) recorder.observe(exchange);
  expect(await recorder.write(dir)).toBe(1);
  expect(await readdir(dir)).toEqual([`${kept}.json`]);

  const fixture = JSON.parse(await readFile(join(dir, `${kept}.json`), "utf8")) as unknown;
  expect(JSON.stringify(fixture)).not.toContain("sk-fake-a");
  const fake = await createFakeServer({ port: 0 });
  onTestFinished(() => fake.close());
  const imported = await fetch(new URL("/__fake/conversations", fake.url), {
    method: "POST",
    body: JSON.stringify(fixture),
  });
  expect(imported.status).toBe(201);
  const again = (await (
    await fetch(`${fake.url}/v1/agents/agent-a/conversations/${kept}/messages`, { headers })
  ).json()) as { items: unknown[] };
  expect(again.items).toEqual(listed);
});
