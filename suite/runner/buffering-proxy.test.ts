/**
 * A service behind a proxy that buffers whole responses (nginx's default proxy_buffering): the
 * SSE-9 warning names the likely cause and its remedies, not only the symptom.
 */

import { expect, test } from "vitest";
import { createFakeServer } from "../../fake-server/index.ts";
import { runConformance } from "./run.ts";
import { rewritingProxy, tempDir } from "../test-support/runner-fixtures.ts";

const KEY = "sk-buffered-0123456789";

test("every stream arriving in one network read: SSE-9 warns that a buffering proxy may hold the stream, with the remedies", async ({
  onTestFinished,
}) => {
  const fake = await createFakeServer({ port: 0, keys: [`${KEY}=agent-a`] });
  onTestFinished(() => fake.close());
  // Reads the whole upstream answer, then sends it in one write.
  const proxy = await rewritingProxy(fake.url, (whole) => whole);
  const reportDir = await tempDir("conformance-buffered-");
  const { exitCode, report } = await runConformance(
    { baseUrl: proxy.url, apiKey: KEY, agentId: "agent-a", only: ["SSE-9"], reportDir },
    { progress: false, print: () => {}, printError: () => {} },
  );
  const sse9 = report?.requirements.find((r) => r.id === "SSE-9");
  expect(sse9?.status, JSON.stringify(report?.harnessErrors)).toBe("warn");
  expect(sse9?.reason).toContain(
    "in one network read: a buffering proxy in front of the service may be holding the stream",
  );
  expect(sse9?.reason).toContain("`proxy_buffering off;`");
  expect(sse9?.reason).toContain("`X-Accel-Buffering: no`");
  expect(exitCode).toBe(0);
}, 30_000);
