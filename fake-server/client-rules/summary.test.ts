import { spawn } from "node:child_process";
import { once } from "node:events";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { expect, onTestFinished, test } from "vitest";
import { createResponse, streamResponse } from "../test-support/client.ts";
import { mergedCounts, summaryLines } from "./summary.ts";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
// The tsx binary itself: npx would not pass SIGTERM on to its child.
const TSX = fileURLToPath(new URL("../../node_modules/.bin/tsx", import.meta.url));

test("the summary names each violated requirement with its level, title and count", () => {
  expect(summaryLines([])).toEqual(["client violations: none"]);
  expect(
    summaryLines([
      { requirement: "CLIENT-2", title: "create without an Idempotency-Key", count: 2 },
      { requirement: "CLIENT-7", title: "retry storm", count: 1 },
    ]),
  ).toEqual([
    "client violations: 3 (details: GET /__fake/client-violations while the fake runs)",
    "  CLIENT-2 MUST create without an Idempotency-Key: 2",
    "  CLIENT-7 SHOULD retry storm: 1",
  ]);
});

test("the counts of several sessions add up per requirement, in requirement order", () => {
  expect(
    mergedCounts([
      [
        { requirement: "CLIENT-10", title: "ten", count: 1 },
        { requirement: "CLIENT-2", title: "two", count: 2 },
      ],
      [],
      [{ requirement: "CLIENT-2", title: "two", count: 3 }],
    ]),
  ).toEqual([
    { requirement: "CLIENT-2", title: "two", count: 5 },
    { requirement: "CLIENT-10", title: "ten", count: 1 },
  ]);
});

test("npm run fake prints the summary on stderr after SIGTERM", async () => {
  const child = spawn(TSX, ["scripts/fake.ts", "--port", "0"], { cwd: ROOT, stdio: "pipe" });
  onTestFinished(() => {
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
  });
  let stderr = "";
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = once(child, "exit");
  const lines = createInterface({ input: child.stdout });
  const [first = ""] = (await once(lines, "line")) as string[];
  lines.close();
  const url = first.replace(/^listening on /, "");
  await createResponse(url, { idempotencyKey: null });
  await streamResponse(url, { headers: { accept: "*/*" } });
  await streamResponse(url, { headers: { accept: "*/*" } });
  child.kill("SIGTERM");
  const [code] = (await exited) as [number | null];
  expect(code).toBe(0);
  expect(stderr).toContain("client violations: 3");
  expect(stderr).toMatch(/ {2}CLIENT-2 MUST create without an Idempotency-Key: 1\n/);
  expect(stderr).toMatch(/ {2}CLIENT-5 MUST stream request without Accept: text\/event-stream: 2\n/);
});
