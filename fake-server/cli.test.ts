import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { once } from "node:events";
import { fileURLToPath } from "node:url";
import { createInterface } from "node:readline";
import { expect, onTestFinished, test } from "vitest";
import { createResponse } from "./test-support/client.ts";
import { expectError, expectResult } from "./test-support/expect.ts";

const ROOT = fileURLToPath(new URL("..", import.meta.url));

// As `npm run fake` runs it: node with tsx's loader, one process that gets the signals itself.
// (scripts/fake.test.ts stops it through npm.)
function startCli(args: string[], onFinished: typeof onTestFinished = onTestFinished): ChildProcessWithoutNullStreams {
  const child = spawn(process.execPath, ["--import", "tsx", "scripts/fake.ts", ...args], { cwd: ROOT, stdio: "pipe" });
  onFinished(() => {
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
  });
  return child;
}

async function firstLine(child: ChildProcessWithoutNullStreams): Promise<string> {
  const lines = createInterface({ input: child.stdout });
  const timer = setTimeout(() => child.kill("SIGKILL"), 15_000);
  try {
    for await (const line of lines) return line;
    throw new Error("the CLI ended without printing a line");
  } finally {
    clearTimeout(timer);
    lines.close();
  }
}

async function exitOf(child: ChildProcessWithoutNullStreams): Promise<{ code: number | null; stderr: string }> {
  let stderr = "";
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const [code] = (await once(child, "exit")) as [number | null];
  return { code, stderr };
}

test("the CLI prints where it listens, serves, and exits 0 on SIGTERM", async () => {
  const child = startCli(["--port", "0", "--key", "sk-cli=agent-x@kiosk", "--no-faults"]);
  const exited = exitOf(child);
  const line = await firstLine(child);
  expect(line).toMatch(/^listening on http:\/\/127\.0\.0\.1:\d+$/);
  const url = line.slice("listening on ".length);
  expectResult(await createResponse(url, { key: "sk-cli", agent: "agent-x" }));
  expectError(await createResponse(url, { key: "sk-fake-a" }), 401, "unauthorized");
  expectError(
    await createResponse(url, { key: "sk-cli", agent: "agent-x", headers: { "x-fake-fault": "status=500" } }),
    400,
    "invalid_request",
  );
  child.kill("SIGTERM");
  const { code, stderr } = await exited;
  expect(code).toBe(0);
  expect(stderr).toMatch(/^client violations: /m);
});

test.concurrent.for([
  [["--bogus"], "Unknown option"],
  [["--port", "70000"], "--port"],
  [["--key", "no-agents"], "TOKEN=AGENT"],
] as const)("bad flags %j exit 2 with a message on stderr", async ([args, fragment], context) => {
  const { code, stderr } = await exitOf(startCli([...args], context.onTestFinished));
  context.expect(code).toBe(2);
  context.expect(stderr).toContain(fragment);
});
