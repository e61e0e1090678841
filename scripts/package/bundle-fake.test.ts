import { copyFile, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, expect, onTestFinished, test } from "vitest";
import { BUNDLE_NAME, bundleFake } from "./bundle-fake.ts";
import { cleanEnv, runCommand } from "./command.ts";
import { expectStopped, startFake } from "./fake-launcher.ts";

// The single file is copied alone into an empty folder under the system's temporary folder:
// no node_modules in it or above it, so whatever it needs must be inside it.
const LIMIT_MS = 30_000;
let folder: string;
let file: string;

beforeAll(async () => {
  const built = await mkdtemp(join(tmpdir(), "fake-bundle-build-"));
  folder = await mkdtemp(join(tmpdir(), "fake-bundle-run-"));
  try {
    await bundleFake(join(built, BUNDLE_NAME));
    file = join(folder, BUNDLE_NAME);
    await copyFile(join(built, BUNDLE_NAME), file);
  } finally {
    await rm(built, { recursive: true, force: true });
  }
}, 60_000);
afterAll(() => rm(folder, { recursive: true, force: true }));

const run = (args: string[]) =>
  runCommand(process.execPath, [file, ...args], { cwd: folder, timeoutMs: LIMIT_MS, env: cleanEnv() });

test("the single file serves the API from an empty folder, and stops on SIGTERM", async () => {
  const fake = await startFake(
    process.execPath,
    [file, "--port", "0", "--key", "sk-solo=bot@web"],
    { cwd: folder, timeoutMs: LIMIT_MS, env: cleanEnv() },
    onTestFinished,
  );
  const headers = { authorization: "Bearer sk-solo", "content-type": "application/json", "idempotency-key": "one" };
  const created = await fetch(new URL("/v1/agents/bot/responses", fake.url), {
    method: "POST",
    headers,
    body: JSON.stringify({ message: "How do reminders work?" }),
  });
  expect(created.status).toBe(200);
  const { conversation_id } = (await created.json()) as { conversation_id: string };

  const stream = await fetch(new URL("/v1/agents/bot/responses/stream", fake.url), {
    method: "POST",
    headers: { ...headers, accept: "text/event-stream", "idempotency-key": "two" },
    body: JSON.stringify({ message: "And exports?", conversation_id }),
  });
  expect(stream.headers.get("content-type")).toMatch(/^text\/event-stream/);
  expect(await stream.text()).toContain("event: response.completed");

  const rule = await fetch(new URL("/__fake/faults", fake.url), {
    method: "POST",
    body: JSON.stringify({ match: { operation: "list" }, fault: "status=503" }),
  });
  expect(rule.status).toBe(201);
  const listed = await fetch(new URL(`/v1/agents/bot/conversations/${conversation_id}/messages`, fake.url), {
    headers,
  });
  expect(listed.status).toBe(503);

  process.kill(fake.launcher.pid, "SIGTERM");
  const result = await expectStopped(fake);
  expect(result.code).toBe(0);
}, 60_000);

test("the single file takes the same flags: --help, and a bad flag is exit 2 with a message", async () => {
  const help = await run(["--help"]);
  expect(help.code, help.output).toBe(0);
  expect(help.stdout).toContain("--max-conversations N");
  const bad = await run(["--colour", "blue"]);
  expect(bad.code, bad.output).toBe(2);
  expect(bad.stderr).toMatch(/agent-service-fake: .*colour/);
  const mutant = await run(["--mutant", "no-such-mutant"]);
  expect(mutant.code, mutant.output).toBe(2);
}, 60_000);
