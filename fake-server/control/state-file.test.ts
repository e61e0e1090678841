import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, onTestFinished, test } from "vitest";
import { startFakeServer } from "../server.ts";
import { createResponse, listMessages } from "../test-support/client.ts";
import { expectPage, expectResult } from "../test-support/expect.ts";
import { inSession } from "../test-support/control-client.ts";

async function folder(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "fake-state-"));
  onTestFinished(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

test("conversations of every session are written on close and served again after a restart", async () => {
  const stateFile = join(await folder(), "state.json");
  const first = await startFakeServer({ port: 0, stateFile });
  const a = expectResult(await createResponse(first.url, { body: { message: "kept in default" } })).conversation_id;
  const b = expectResult(
    await createResponse(first.url, { body: { message: "kept in team-b" }, key: "sk-fake-b", ...inSession("team-b") }),
  ).conversation_id;
  const before = expectPage(await listMessages(first.url, a));
  await first.close();

  const second = await startFakeServer({ port: 0, stateFile });
  onTestFinished(() => second.close());
  const after = expectPage(await listMessages(second.url, a));
  expect(after.items).toEqual(before.items);
  expect(after.conversation.id).toBe(a);
  const other = expectPage(await listMessages(second.url, b, { key: "sk-fake-b", ...inSession("team-b") }));
  expect(other.items[0]?.content).toBe("kept in team-b");
  expect((await listMessages(second.url, b, { key: "sk-fake-b" })).status).toBe(404);
});

test("without the file the fake starts empty and writes it on close", async () => {
  const stateFile = join(await folder(), "new.json");
  const fake = await startFakeServer({ port: 0, stateFile });
  expect(fake.app.internals.snapshot().conversations).toBe(0);
  await fake.close();
  expect(JSON.parse(await readFile(stateFile, "utf8"))).toEqual({ version: 1, sessions: {} });
});

test.each([
  ["not JSON", "{"],
  ["another shape", JSON.stringify({ conversations: [] })],
  [
    "a bad conversation",
    JSON.stringify({
      version: 1,
      sessions: { default: [{ agent: "agent-a", messages: [{ role: "robot", content: "x" }] }] },
    }),
  ],
  ["a bad session name", JSON.stringify({ version: 1, sessions: { "a b": [] } })],
])("a state file that is %s stops the start, naming the file, and is left as it was", async (_, text) => {
  const stateFile = join(await folder(), "broken.json");
  await writeFile(stateFile, text);
  await expect(startFakeServer({ port: 0, stateFile })).rejects.toThrow(stateFile);
  expect(await readFile(stateFile, "utf8")).toBe(text);
});
