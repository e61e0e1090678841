/**
 * A service whose timestamps carry no UTC offset (a naive datetime serialised as is): LIST-8
 * says they are valid ISO 8601 but not RFC 3339, not "Invalid ISO datetime".
 */

import { expect, test } from "vitest";
import { createFakeServer } from "../../fake-server/index.ts";
import { runConformance } from "./run.ts";
import { rewritingProxy, tempDir } from "../test-support/runner-fixtures.ts";

const KEY = "sk-naive-0123456789";

test("LIST-8 names a timestamp without an offset valid ISO 8601 but not RFC 3339", async ({ onTestFinished }) => {
  const fake = await createFakeServer({ port: 0, keys: [`${KEY}=agent-a`] });
  onTestFinished(() => fake.close());
  // Drops the Z of every timestamp the fake writes: 2026-11-25T10:00:00.123Z → 2026-11-25T10:00:00.123
  const proxy = await rewritingProxy(fake.url, (whole) =>
    Buffer.from(whole.toString("utf8").replace(/(T\d{2}:\d{2}:\d{2}(\.\d+)?)Z"/g, '$1"')),
  );
  const { report } = await runConformance(
    {
      baseUrl: proxy.url,
      apiKey: KEY,
      agentId: "agent-a",
      only: ["LIST-8"],
      reportDir: await tempDir("conformance-naive-"),
    },
    { progress: false, print: () => {}, printError: () => {} },
  );
  const list8 = report?.requirements.find((r) => r.id === "LIST-8");
  expect(list8?.status).toBe("warn");
  expect(list8?.reason).toContain("valid ISO 8601 but not RFC 3339 (no UTC offset");
  expect(list8?.reason).not.toContain("Invalid ISO datetime");
}, 30_000);
